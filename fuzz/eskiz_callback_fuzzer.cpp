// Eskiz delivery reports as they arrive at the callback route: JSON,
// multipart/form-data or url-encoded. Parsing never throws anything but
// core::RequestError; a report that is accepted names an id and a status
// without NUL; the multipart form chopar builds reads back field by field.
#include <vector>

#include "channels/sms/eskiz_callback.hpp"
#include "channels/sms/eskiz_form.hpp"
#include "core/request_error.hpp"
#include "fuzz_support.hpp"

using namespace chopar;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::AsText(data, size);
  try {
    const channels::sms::EskizReport report = channels::sms::ParseEskizReport(body);
    fuzz::Require(!report.provider_message_id.empty() && !report.status.empty(), "id and status");
    fuzz::Require(report.provider_message_id.find('\0') == std::string::npos, "no NUL in the id");
  } catch (const core::RequestError& e) {
    fuzz::Require(e.code() == core::ErrorCode::kInvalidCallback, "refused as an invalid callback");
  }
  // Round trip through the form chopar sends: names as Eskiz's are ([a-z_]),
  // values whatever the input holds.
  std::vector<channels::sms::FormField> fields;
  for (const auto& [name, value] : channels::sms::ParseFormFields(body)) {
    bool plain = !name.empty();
    for (char c : name) plain = plain && ((c >= 'a' && c <= 'z') || c == '_');
    if (plain) fields.push_back({name, value});
  }
  const auto form = channels::sms::BuildMultipartForm(fields);
  const auto read_back = channels::sms::ParseFormFields(form.body);
  fuzz::Require(read_back.size() == fields.size(), "every field reads back");
  for (const auto& field : fields) {
    const auto it = read_back.find(field.name);
    fuzz::Require(it != read_back.end() && it->second == field.value, "each value reads back");
  }
  return 0;
}
