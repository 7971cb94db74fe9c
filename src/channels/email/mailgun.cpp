#include "channels/email/mailgun.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/render.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::email {
namespace {

bool IsHostName(std::string_view name) {
  return !name.empty() && name.size() <= 253 && name.find("..") == std::string_view::npos &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.';
         });
}

// A boundary that `mime` does not contain (random: it never does).
std::string BoundaryFor(std::string_view mime) {
  while (true) {
    std::string boundary = "chopar-" + core::HexEncode(core::RandomBytes(16));
    if (mime.find(boundary) == std::string_view::npos) return boundary;
  }
}

}  // namespace

std::string MailgunMimeForm(std::string_view to, std::string_view mime, std::string_view boundary) {
  std::string body;
  body.reserve(mime.size() + 400);
  body += "--" + std::string(boundary) + "\r\n";
  body += "Content-Disposition: form-data; name=\"to\"\r\n\r\n";
  body += std::string(to) + "\r\n";
  body += "--" + std::string(boundary) + "\r\n";
  body += "Content-Disposition: form-data; name=\"message\"; filename=\"message.eml\"\r\n";
  body += "Content-Type: message/rfc822\r\n\r\n";
  body += std::string(mime) + "\r\n";
  body += "--" + std::string(boundary) + "--\r\n";
  return body;
}

Outcome MailgunOutcome(const net::HttpResponse& response,
                       std::chrono::system_clock::time_point now) {
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  const std::string message =
      body.is_object() && body.contains("message") && body["message"].is_string()
          ? CutCodePoints(body["message"].get<std::string>(), 200)
          : CutCodePoints(response.body, 200);
  if (response.status >= 200 && response.status < 300) {
    if (body.is_object() && body.contains("id") && body["id"].is_string()) {
      return Outcome::Sent(body["id"].get<std::string>());
    }
    return Outcome::Sent();
  }
  const std::string detail =
      "mailgun " + std::to_string(response.status) + (message.empty() ? "" : ": " + message);
  if (auto busy = BusyOutcome(response, detail, now)) return std::move(*busy);
  if (response.status == 401 || response.status == 403) {
    return Outcome::Permanent(detail + " (check the Mailgun key)");
  }
  return Outcome::Permanent(detail);
}

EmailApi MailgunApi(MailgunSettings mailgun) {
  if (!IsHostName(mailgun.domain)) {
    throw std::invalid_argument("mailgun_domain must be the sending domain (\"mg.example.com\")");
  }
  if (mailgun.api_key.empty()) throw std::invalid_argument("mailgun_api_key must be set");
  const std::string url =
      ApiBaseUrl(mailgun.base_url, "mailgun_base_url") + "/v3/" + mailgun.domain + "/messages.mime";
  const std::string authorization =
      "Authorization: Basic " + core::Base64Encode("api:" + mailgun.api_key);
  auto request = [url, authorization](const Message& m, const ComposedEmail& composed) {
    const std::string boundary = BoundaryFor(composed.mime);
    net::HttpRequest call;
    call.url = url;
    call.headers = {authorization, "Content-Type: multipart/form-data; boundary=" + boundary};
    call.body = MailgunMimeForm(*m.email, composed.mime, boundary);
    return call;
  };
  return {"mailgun", std::move(request), MailgunOutcome};
}

}  // namespace chopar::channels::email
