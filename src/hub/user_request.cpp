#include "hub/user_request.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/request_error.hpp"
#include "core/text.hpp"
#include "core/time_format.hpp"
#include "hub/preferences.hpp"
#include "hub/push_keys.hpp"
#include "hub/validation.hpp"
#include "net/address_policy.hpp"

namespace chopar::hub {
namespace {

// Left out: keep; given (a value, or nullopt for null): change.
template <typename T>
FieldUpdate<T> UpdateOf(const nlohmann::json& body, const char* field, std::optional<T> value) {
  if (!body.contains(field)) return FieldUpdate<T>::Keep();
  return {true, std::move(value)};
}

// quiet_hours.start / .end: "HH:MM", or nullopt if missing or malformed.
std::optional<std::string> QuietTime(const nlohmann::json& quiet, const char* key) {
  const auto it = quiet.find(key);
  if (it == quiet.end() || !it->is_string() || !ParseClockTime(it->get<std::string>())) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

bool IsValidLocale(const std::string& locale) {
  bool ok = locale.size() >= 2;
  for (std::size_t i = 0; i < locale.size() && ok; ++i) {
    const char c = locale[i];
    ok = (i < 2 && c >= 'a' && c <= 'z') ||
         (i >= 2 && (std::isalnum(static_cast<unsigned char>(c)) || c == '-'));
  }
  return ok;
}

// Present and not null.
const nlohmann::json* Given(const nlohmann::json& body, const char* field) {
  const auto it = body.find(field);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

// "addresses": {"<channel>": "<address>" or null}, for the registered
// channels whose address is a text of their own (core::AddressStore::kUser).
UserAddresses ParseAddresses(const nlohmann::json& given) {
  if (!given.is_object()) {
    throw core::InvalidField("addresses",
                             "addresses must be an object {\"<channel>\": \"<address>\"} or null");
  }
  std::vector<std::string_view> allowed;
  for (const core::ChannelKind kind : core::AllChannels()) {
    if (core::StoreOf(core::InfoOf(kind)) == core::AddressStore::kUser) {
      allowed.push_back(core::ChannelName(kind));
    }
  }
  UserAddresses addresses;
  for (const auto& [channel, value] : given.items()) {
    const std::string field = "addresses." + channel;
    if (std::find(allowed.begin(), allowed.end(), channel) == allowed.end()) {
      throw core::InvalidField(
          field, allowed.empty()
                     ? field +
                           ": no channel takes its address here (email and phone are "
                           "members of the user; Telegram and push have their own routes)"
                     : field + ": the channel must be " + core::ChoiceText(allowed));
    }
    if (value.is_null()) {
      addresses[channel] = std::nullopt;
      continue;
    }
    if (!value.is_string()) throw core::InvalidField(field, field + " must be a string or null");
    const auto& address = value.get_ref<const std::string&>();
    if (address.empty() || address.size() > kMaxUserAddressBytes) {
      throw core::InvalidField(
          field, field + " must be 1 to " + std::to_string(kMaxUserAddressBytes) + " bytes");
    }
    if (std::any_of(address.begin(), address.end(),
                    [](char c) { return std::iscntrl(static_cast<unsigned char>(c)) != 0; })) {
      throw core::InvalidField(field, field + " must not hold control characters");
    }
    const core::ChannelInfo& info = core::InfoOf(*core::ParseChannel(channel));
    if (info.address_problem != nullptr) {
      if (auto problem = info.address_problem(address)) {
        throw core::InvalidField(field, field + ": " + *problem);
      }
    }
    addresses[channel] = address;
  }
  return addresses;
}

// "tenants": an array of at most kMaxUserTenants tenant keys, each once.
std::vector<std::string> ParseTenantKeys(const nlohmann::json& given) {
  if (!given.is_array()) {
    throw core::InvalidField("tenants", "tenants must be an array of tenant keys or null");
  }
  if (given.size() > kMaxUserTenants) {
    throw core::InvalidField(
        "tenants", "a user belongs to at most " + std::to_string(kMaxUserTenants) + " tenants");
  }
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string field = "tenants[" + std::to_string(i) + "]";
    if (!given[i].is_string() || !IsValidTenantKey(given[i].get<std::string>())) {
      throw core::InvalidField(field, field + " must be a tenant key");
    }
    std::string key = given[i].get<std::string>();
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      throw core::InvalidField(field, field + " repeats " + key);
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace

bool IsUserUpdateMember(std::string_view name) {
  static const std::set<std::string, std::less<>> kMembers = {
      "email",       "phone", "timezone", "locale",    "preferences",
      "quiet_hours", "admin", "data",     "addresses", "tenants"};
  return kMembers.contains(name);
}

UserUpdate ParseUserUpdate(const nlohmann::json& body) {
  RequireObject(body);
  for (const auto& [key, value] : body.items()) {
    if (!IsUserUpdateMember(key)) throw core::InvalidField(key, "unknown field " + key);
  }
  UserUpdate update;
  std::optional<std::string> email = OptionalString(body, "email", 3, 254);
  if (email && !IsValidEmail(*email)) {
    throw core::InvalidField("email", "email is not a valid address");
  }
  update.email = UpdateOf(body, "email", std::move(email));

  std::optional<std::string> phone = OptionalString(body, "phone", 1, 40);
  if (phone) {
    phone = NormalizePhone(*phone);
    if (!phone) {
      throw core::InvalidField("phone",
                               "phone must be an international number such as +998901234567");
    }
  }
  update.phone = UpdateOf(body, "phone", std::move(phone));

  std::optional<std::string> timezone = OptionalString(body, "timezone", 1, 64);
  if (timezone && !core::IsKnownTimeZone(*timezone)) {
    throw core::InvalidField("timezone", "unknown IANA time zone " + *timezone);
  }
  update.timezone = UpdateOf(body, "timezone", std::move(timezone));

  std::optional<std::string> locale = OptionalString(body, "locale", 2, 16);
  if (locale && !IsValidLocale(*locale)) {
    throw core::InvalidField("locale", "locale must look like uz, en or uz-Latn");
  }
  update.locale = UpdateOf(body, "locale", std::move(locale));

  std::optional<nlohmann::json> preferences;
  if (const nlohmann::json* given = Given(body, "preferences")) {
    ValidatePreferences(*given, "preferences.");
    preferences = *given;
  }
  update.preferences = UpdateOf(body, "preferences", std::move(preferences));

  std::optional<QuietHours> quiet_hours;
  if (const nlohmann::json* quiet = Given(body, "quiet_hours")) {
    if (!quiet->is_object()) {
      throw core::InvalidField(
          "quiet_hours", "quiet_hours must be {\"start\": \"HH:MM\", \"end\": \"HH:MM\"} or null");
    }
    const auto start = QuietTime(*quiet, "start");
    const auto end = QuietTime(*quiet, "end");
    if (!start || !end) {
      throw core::InvalidField("quiet_hours", "quiet_hours start and end must be HH:MM");
    }
    if (start == end)
      throw core::InvalidField("quiet_hours", "quiet_hours start and end must differ");
    quiet_hours = QuietHours{*start, *end};
  }
  update.quiet_hours = UpdateOf(body, "quiet_hours", std::move(quiet_hours));

  std::optional<bool> admin;
  if (const nlohmann::json* given = Given(body, "admin")) {
    if (!given->is_boolean()) throw core::InvalidField("admin", "admin must be true or false");
    admin = given->get<bool>();
  }
  update.admin = UpdateOf(body, "admin", admin);

  std::optional<nlohmann::json> data;
  if (const nlohmann::json* given = Given(body, "data")) {
    if (!given->is_object()) throw core::InvalidField("data", "data must be a JSON object or null");
    RequireNoNul(*given, "data");
    if (given->dump().size() > kMaxUserDataBytes) {
      throw core::InvalidField(
          "data", "data must be at most " + std::to_string(kMaxUserDataBytes) + " bytes of JSON");
    }
    data = *given;
  }
  update.data = UpdateOf(body, "data", std::move(data));

  std::optional<UserAddresses> addresses;
  if (const nlohmann::json* given = Given(body, "addresses")) addresses = ParseAddresses(*given);
  update.addresses = UpdateOf(body, "addresses", std::move(addresses));

  std::optional<std::vector<std::string>> tenants;
  if (const nlohmann::json* given = Given(body, "tenants")) tenants = ParseTenantKeys(*given);
  update.tenants = UpdateOf(body, "tenants", std::move(tenants));
  return update;
}

TelegramChat ParseTelegramChat(const nlohmann::json& body) {
  RequireObject(body);
  const auto it = body.find("chat_id");
  if (it == body.end() || !it->is_number_integer()) {
    throw core::InvalidField("chat_id", "chat_id must be an integer (Telegram chat id)");
  }
  return {it->get<std::int64_t>()};
}

PushSubscription ParsePushSubscription(const nlohmann::json& body, bool allow_http_endpoint) {
  RequireObject(body);
  PushSubscription subscription;
  subscription.endpoint = RequireString(body, "endpoint", 8, 2048);
  const bool https = subscription.endpoint.starts_with("https://");
  const bool http = subscription.endpoint.starts_with("http://");
  if (!https && !(http && allow_http_endpoint)) {
    throw core::InvalidField("endpoint", "endpoint must be an https:// URL of a push service");
  }
  for (unsigned char c : subscription.endpoint) {
    if (c <= 0x20 || c == 0x7F) {
      throw core::InvalidField("endpoint", "endpoint must not contain spaces");
    }
  }
  // chopar will call this URL: it must not lead into chopar's own network.
  // Names are checked again once resolved, at send time. Only a test setup
  // (http:// endpoints allowed) may use a local push service.
  if (!allow_http_endpoint) {
    const auto host = net::UrlHost(subscription.endpoint);
    if (!host || !net::IsPublicHost(*host)) {
      throw core::InvalidField("endpoint",
                               "endpoint must be on a public address, not loopback, private, "
                               "link-local or metadata");
    }
  }
  const auto keys = body.find("keys");
  if (keys == body.end() || !keys->is_object()) {
    throw core::InvalidField("keys", "keys {\"p256dh\", \"auth\"} are required");
  }
  const auto p256dh = NormalizeP256dh(RequireString(*keys, "p256dh", 1, 200));
  if (!p256dh) {
    throw core::InvalidField("keys.p256dh",
                             "p256dh must be an uncompressed P-256 point in base64url");
  }
  const auto auth = NormalizeAuthSecret(RequireString(*keys, "auth", 1, 100));
  if (!auth) throw core::InvalidField("keys.auth", "auth must be 16 bytes in base64url");
  subscription.p256dh = *p256dh;
  subscription.auth = *auth;
  return subscription;
}

}  // namespace chopar::hub
