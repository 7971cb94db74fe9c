#include "channels/sms/eskiz_form.hpp"

#include "core/encoding.hpp"

namespace chopar::channels::sms {
namespace {

// Form fields as Eskiz sends them; a malformed escape is kept as it came.
// The first of a repeated name wins.
std::map<std::string, std::string> ParseUrlEncoded(std::string_view body) {
  // kKeepAsSent never refuses: the optional always holds the pairs.
  auto pairs = core::DecodeFormPairs(body, core::MalformedEscapes::kKeepAsSent);
  std::map<std::string, std::string> fields;
  for (auto& [name, value] : pairs.value()) fields.emplace(std::move(name), std::move(value));
  return fields;
}

std::map<std::string, std::string> ParseMultipart(std::string_view body) {
  std::map<std::string, std::string> fields;
  const auto first_end = body.find("\r\n");
  if (first_end == std::string_view::npos) return fields;
  const std::string delimiter = "\r\n" + std::string(body.substr(0, first_end));
  std::size_t at = first_end + 2;
  for (;;) {
    const auto next = body.find(delimiter, at);
    if (next == std::string_view::npos) break;
    const std::string_view part = body.substr(at, next - at);
    const auto head_end = part.find("\r\n\r\n");
    if (head_end != std::string_view::npos) {
      const std::string_view head = part.substr(0, head_end);
      const auto name_at = head.find("name=\"");
      if (name_at != std::string_view::npos) {
        const auto name_end = head.find('"', name_at + 6);
        if (name_end != std::string_view::npos) {
          fields.emplace(std::string(head.substr(name_at + 6, name_end - name_at - 6)),
                         std::string(part.substr(head_end + 4)));
        }
      }
    }
    at = next + delimiter.size();
    if (body.substr(at, 2) == "--") break;
    at = body.find("\r\n", at);
    if (at == std::string_view::npos) break;
    at += 2;
  }
  return fields;
}

}  // namespace

MultipartForm BuildMultipartForm(std::span<const FormField> fields) {
  std::string boundary;
  for (;;) {
    boundary = "chopar-" + core::HexEncode(core::RandomBytes(16));
    bool clash = false;
    for (const auto& f : fields) clash = clash || f.value.find(boundary) != std::string::npos;
    if (!clash) break;
  }
  MultipartForm form;
  form.content_type = "multipart/form-data; boundary=" + boundary;
  for (const auto& f : fields) {
    form.body += "--" + boundary + "\r\n";
    form.body += "Content-Disposition: form-data; name=\"" + f.name + "\"\r\n\r\n";
    form.body += f.value + "\r\n";
  }
  form.body += "--" + boundary + "--\r\n";
  return form;
}

std::map<std::string, std::string> ParseFormFields(std::string_view body) {
  if (body.starts_with("--")) return ParseMultipart(body);
  return ParseUrlEncoded(body);
}

}  // namespace chopar::channels::sms
