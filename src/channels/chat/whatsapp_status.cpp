#include "channels/chat/whatsapp_status.hpp"

#include <nlohmann/json.hpp>

#include "channels/chat/queries.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::chat {
namespace {

constexpr std::string_view kSignaturePrefix = "sha256=";

bool IsKnownStatus(std::string_view status) {
  return status == "sent" || status == "delivered" || status == "read" || status == "failed";
}

// An array member of a JSON object, or an empty array.
const nlohmann::json& ArrayMember(const nlohmann::json& object, const char* name) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!object.is_object()) return kEmpty;
  const auto it = object.find(name);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

std::string StringMember(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return "";
  const auto it = object.find(name);
  if (it == object.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->is_number() ? it->dump() : "";
}

// "131026 Message undeliverable": the first error of a failed status.
std::string FirstError(const nlohmann::json& status) {
  const auto& errors = ArrayMember(status, "errors");
  if (errors.empty()) return "";
  const std::string code = StringMember(errors[0], "code");
  const std::string title = StringMember(errors[0], "title");
  return (code + " " + title).substr(0, 300);
}

}  // namespace

bool WhatsAppSignatureMatches(std::string_view app_secret, std::string_view body,
                              std::string_view signature_header) {
  if (app_secret.empty() || !signature_header.starts_with(kSignaturePrefix)) return false;
  const std::string expected = core::HexEncode(core::HmacSha256(app_secret, body));
  std::string given(signature_header.substr(kSignaturePrefix.size()));
  for (char& c : given) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return core::ConstantTimeEquals(given, expected);
}

std::vector<WhatsAppStatus> ParseWhatsAppStatuses(std::string_view body) {
  const nlohmann::json hook = core::ParseJsonOrDiscarded(body);
  if (!hook.is_object()) throw core::InvalidJson("a WhatsApp webhook body must be a JSON object");
  std::vector<WhatsAppStatus> statuses;
  for (const auto& entry : ArrayMember(hook, "entry")) {
    for (const auto& change : ArrayMember(entry, "changes")) {
      const auto value = change.is_object() ? change.find("value") : change.end();
      if (value == change.end()) continue;
      for (const auto& status : ArrayMember(*value, "statuses")) {
        WhatsAppStatus s{StringMember(status, "id"), StringMember(status, "status"), ""};
        if (s.message_id.empty() || s.message_id.find('\0') != std::string::npos) {
          throw core::RequestError(core::ErrorCode::kInvalidCallback,
                                   "a WhatsApp status needs the message's id");
        }
        if (!IsKnownStatus(s.status)) continue;
        if (s.status == "failed") s.error = FirstError(status);
        if (statuses.size() == kMaxStatusesPerWebhook) {
          throw core::RequestError(core::ErrorCode::kInvalidCallback,
                                   "a WhatsApp webhook may carry at most " +
                                       std::to_string(kMaxStatusesPerWebhook) + " statuses");
        }
        statuses.push_back(std::move(s));
      }
    }
  }
  return statuses;
}

WhatsAppStatusResult RecordWhatsAppStatuses(db::Pool& pool,
                                            const std::vector<WhatsAppStatus>& statuses,
                                            const core::Clock& clock) {
  WhatsAppStatusResult result;
  result.statuses = statuses.size();
  if (statuses.empty()) return result;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : statuses) {
    rows.push_back({{"id", s.message_id}, {"status", s.status}, {"error", s.error}});
  }
  auto conn = pool.Acquire();
  const auto answer =
      conn->Exec(queries::kWhatsappRecordStatuses,
                 rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                 core::FormatRfc3339(clock.Now()));
  result.matched = static_cast<std::size_t>(answer.Int(0, "matched"));
  result.changed = static_cast<std::size_t>(answer.Int(0, "changed"));
  return result;
}

}  // namespace chopar::channels::chat
