#include "hub/user_service.hpp"

#include <cctype>
#include <set>

#include "core/api_error.hpp"
#include "core/time_format.hpp"
#include "hub/push_keys.hpp"
#include "hub/queries.hpp"
#include "hub/user_json.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {
namespace {

void RequireObject(const nlohmann::json& body) {
  if (!body.is_object()) throw core::ApiError(400, "invalid_json", "the body must be a JSON object");
}

bool Has(const nlohmann::json& body, const char* field) { return body.contains(field); }

// quiet_hours.start / .end: "HH:MM", or nullopt if missing or malformed.
std::optional<std::string> QuietTime(const nlohmann::json& quiet, const char* key) {
  const auto it = quiet.find(key);
  if (it == quiet.end() || !it->is_string() || !ParseClockTime(it->get<std::string>())) return std::nullopt;
  return it->get<std::string>();
}

// The validated fields of a PUT /v1/users/{id} body, in upsert_user.sql order.
db::Params UpsertParams(std::int64_t user_id, const nlohmann::json& body) {
  static const std::set<std::string> kKnown = {"email",  "phone",       "timezone", "locale",
                                               "preferences", "quiet_hours", "admin"};
  for (const auto& [key, value] : body.items()) {
    if (!kKnown.contains(key)) throw core::InvalidField(key, "unknown field " + key);
  }
  std::optional<std::string> email = OptionalString(body, "email", 3, 254);
  if (email && !IsValidEmail(*email)) throw core::InvalidField("email", "email is not a valid address");

  std::optional<std::string> phone = OptionalString(body, "phone", 1, 40);
  if (phone) {
    phone = NormalizePhone(*phone);
    if (!phone) {
      throw core::InvalidField("phone", "phone must be an international number such as +998901234567");
    }
  }
  std::optional<std::string> timezone = OptionalString(body, "timezone", 1, 64);
  if (timezone && !core::IsKnownTimeZone(*timezone)) {
    throw core::InvalidField("timezone", "unknown IANA time zone " + *timezone);
  }
  std::optional<std::string> locale = OptionalString(body, "locale", 2, 16);
  if (locale) {
    bool ok = locale->size() >= 2;
    for (std::size_t i = 0; i < locale->size() && ok; ++i) {
      const char c = (*locale)[i];
      ok = (i < 2 && c >= 'a' && c <= 'z') || (i >= 2 && (std::isalnum(static_cast<unsigned char>(c)) || c == '-'));
    }
    if (!ok) throw core::InvalidField("locale", "locale must look like uz, en or uz-Latn");
  }
  std::optional<std::string> preferences;
  if (Has(body, "preferences") && !body["preferences"].is_null()) {
    if (!body["preferences"].is_object()) throw core::InvalidField("preferences", "preferences must be an object");
    preferences = body["preferences"].dump();
  }
  std::optional<std::string> quiet_start, quiet_end;
  if (Has(body, "quiet_hours") && !body["quiet_hours"].is_null()) {
    const auto& quiet = body["quiet_hours"];
    if (!quiet.is_object()) throw core::InvalidField("quiet_hours", "quiet_hours must be {\"start\": \"HH:MM\", \"end\": \"HH:MM\"} or null");
    quiet_start = QuietTime(quiet, "start");
    quiet_end = QuietTime(quiet, "end");
    if (!quiet_start || !quiet_end) throw core::InvalidField("quiet_hours", "quiet_hours start and end must be HH:MM");
    if (quiet_start == quiet_end) throw core::InvalidField("quiet_hours", "quiet_hours start and end must differ");
  }
  std::optional<bool> admin;
  if (Has(body, "admin") && !body["admin"].is_null()) {
    if (!body["admin"].is_boolean()) throw core::InvalidField("admin", "admin must be true or false");
    admin = body["admin"].get<bool>();
  }
  db::Params params;
  params.Add(user_id)
      .Add(Has(body, "email")).Add(email)
      .Add(Has(body, "phone")).Add(phone)
      .Add(Has(body, "timezone")).Add(timezone)
      .Add(Has(body, "locale")).Add(locale)
      .Add(preferences)
      .Add(Has(body, "quiet_hours")).Add(quiet_start).Add(quiet_end)
      .Add(Has(body, "admin")).Add(admin)
      .Add(Has(body, "preferences") && body["preferences"].is_null());
  return params;
}

}  // namespace

nlohmann::json UserService::PutUser(std::int64_t user_id, const nlohmann::json& body) {
  RequireObject(body);
  const db::Params params = UpsertParams(user_id, body);
  auto tx = pool_.Begin("put_user");
  const auto before = tx.Exec(queries::kLockUserTimezone, user_id);
  tx.Exec(queries::kUpsertUser, params);
  const auto rows = tx.Exec(queries::kGetUser, user_id);
  if (!before.Empty() && before.Text(0, 0) != rows.Text(0, "timezone") && options_.timezone_changed) {
    options_.timezone_changed(tx, user_id);
  }
  tx.Commit();
  return UserJson(rows, 0);
}

nlohmann::json UserService::GetUser(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kGetUser, user_id);
  if (rows.Empty()) throw core::UserNotFound(user_id);
  return UserJson(rows, 0);
}

nlohmann::json UserService::PutTelegram(std::int64_t user_id, const nlohmann::json& body) {
  RequireObject(body);
  const auto it = body.find("chat_id");
  if (it == body.end() || !it->is_number_integer()) {
    throw core::InvalidField("chat_id", "chat_id must be an integer (Telegram chat id)");
  }
  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kUpsertTelegram, user_id, it->get<std::int64_t>()).Empty()) {
    throw core::UserNotFound(user_id);
  }
  return {{"user_id", user_id}, {"chat_id", it->get<std::int64_t>()}, {"active", true}};
}

void UserService::DeleteTelegram(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kUserExists, user_id).Empty()) throw core::UserNotFound(user_id);
  conn->Exec(queries::kDeleteTelegram, user_id);
}

UserService::Subscription UserService::AddPushSubscription(std::int64_t user_id, const nlohmann::json& body) {
  RequireObject(body);
  const std::string endpoint = RequireString(body, "endpoint", 8, 2048);
  const bool https = endpoint.starts_with("https://");
  const bool http = endpoint.starts_with("http://");
  if (!https && !(http && options_.allow_http_push_endpoints)) {
    throw core::InvalidField("endpoint", "endpoint must be an https:// URL of a push service");
  }
  for (unsigned char c : endpoint) {
    if (c <= 0x20 || c == 0x7F) throw core::InvalidField("endpoint", "endpoint must not contain spaces");
  }
  const auto keys = body.find("keys");
  if (keys == body.end() || !keys->is_object()) {
    throw core::InvalidField("keys", "keys {\"p256dh\", \"auth\"} are required");
  }
  const auto p256dh = NormalizeP256dh(RequireString(*keys, "p256dh", 1, 200));
  if (!p256dh) throw core::InvalidField("keys.p256dh", "p256dh must be an uncompressed P-256 point in base64url");
  const auto auth = NormalizeAuthSecret(RequireString(*keys, "auth", 1, 100));
  if (!auth) throw core::InvalidField("keys.auth", "auth must be 16 bytes in base64url");

  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kUserExists, user_id).Empty()) throw core::UserNotFound(user_id);
  const auto row = conn->Exec(queries::kUpsertPushSubscription, user_id, endpoint, *p256dh, *auth);
  return {row.Int(0, "id"), row.Bool(0, "created")};
}

void UserService::DeletePushSubscription(std::int64_t user_id, std::int64_t subscription_id) {
  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kDeletePushSubscription, user_id, subscription_id).AffectedRows() == 0) {
    throw core::NotFound("push subscription " + std::to_string(subscription_id) + " of user " +
                         std::to_string(user_id) + " does not exist");
  }
}

}  // namespace chopar::hub
