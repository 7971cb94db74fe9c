#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chopar::hub {

// One member of a partial update: kept as stored, cleared (back to its
// default), or replaced by a value.
template <typename T>
struct FieldUpdate {
  bool changes = false;      // false: keep the stored value
  std::optional<T> value{};  // with `changes`: the new value, or nullopt to clear

  static FieldUpdate Keep() { return {}; }
  static FieldUpdate Clear() { return {true, std::nullopt}; }
  static FieldUpdate Set(T new_value) { return {true, std::move(new_value)}; }
};

// A user's quiet window: "HH:MM" each, different; start > end crosses midnight.
struct QuietHours {
  std::string start;
  std::string end;
};

// A user's addresses on registered channels whose address is kept in
// chopar.user_addresses (core::AddressStore::kUser), by channel name: an
// address, or nullopt to remove that channel's.
inline constexpr std::size_t kMaxUserAddressBytes = 2048;
using UserAddresses = std::map<std::string, std::optional<std::string>, std::less<>>;

// The most tenants one user may belong to.
inline constexpr std::size_t kMaxUserTenants = 100;

// The largest `data` of a user, in bytes of its JSON text as PostgreSQL
// stores it (the CHECK of chopar.users.data).
inline constexpr std::size_t kMaxUserDataBytes = 16 * 1024;

// A validated create-or-merge of one user (PUT /v1/users/{id}, docs/api.md
// "Users and addresses"). A new user gets the values given and the defaults
// for the rest. Clearing restores the default: email, phone and quiet_hours
// become none, timezone "UTC", locale "en", admin false, preferences {}.
struct UserUpdate {
  FieldUpdate<std::string> email;     // a plausible address, at most 254 characters
  FieldUpdate<std::string> phone;     // E.164, e.g. "+998901234567"
  FieldUpdate<std::string> timezone;  // a known IANA zone name
  FieldUpdate<std::string> locale;    // "uz", "en", "uz-Latn"
  // A JSON object merged into the stored preferences key by key; a key whose
  // value is null is removed.
  FieldUpdate<nlohmann::json> preferences;
  FieldUpdate<QuietHours> quiet_hours;
  FieldUpdate<bool> admin;
  // Custom attributes: a JSON object merged into the stored `data` key by
  // key at the top level (chopar.merged_object), a key whose value is null
  // removed, a nested object replaced as a whole; cleared, data becomes {}.
  FieldUpdate<nlohmann::json> data;
  // Merged channel by channel; cleared, every one is removed first.
  FieldUpdate<UserAddresses> addresses;
  // The tenants the user belongs to (keys, each once): replaces the
  // memberships; cleared, the user belongs to none.
  FieldUpdate<std::vector<std::string>> tenants;
};

// The chat a user's Telegram notifications go to (PUT /v1/users/{id}/telegram).
struct TelegramChat {
  std::int64_t chat_id = 0;
};

// A browser's push subscription (POST /v1/users/{id}/push-subscriptions), its
// keys validated and in unpadded base64url.
struct PushSubscription {
  std::string endpoint;  // https:// (http:// only where allowed), no blanks
  std::string p256dh;    // an uncompressed P-256 point
  std::string auth;      // 16 bytes
};

// The parsers of the request bodies. Each validates everything (the API's
// rules: types, lengths, formats, unknown members of a user) and throws
// core::RequestError naming the field: kInvalidJson for a body that is not a
// JSON object, kInvalidField otherwise. Pure; thread-safe.

// {"email", "phone", "timezone", "locale", "preferences", "quiet_hours",
// "admin", "data", "addresses", "tenants"}: a member left out is kept, null clears it. The phone
// is normalised ("+998 90 123-45-67" → "+998901234567"). A `data` whose
// compact JSON text is over kMaxUserDataBytes is refused here; one that is
// over once merged (or in PostgreSQL's longer text form) by
// UserService::PutUser.
UserUpdate ParseUserUpdate(const nlohmann::json& body);
// Whether `name` is a member ParseUserUpdate takes.
bool IsUserUpdateMember(std::string_view name);
// {"chat_id": integer}.
TelegramChat ParseTelegramChat(const nlohmann::json& body);
// The browser's PushSubscription JSON {"endpoint", "keys": {"p256dh",
// "auth"}}; an http:// endpoint only if `allow_http_endpoint` (tests against
// a local push service).
PushSubscription ParsePushSubscription(const nlohmann::json& body, bool allow_http_endpoint);

}  // namespace chopar::hub
