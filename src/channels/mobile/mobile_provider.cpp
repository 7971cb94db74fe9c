#include "channels/mobile/mobile_provider.hpp"

#include <charconv>
#include <memory>
#include <stdexcept>

#include "channels/mobile/mobile_channel.hpp"
#include "channels/provider_secret.hpp"
#include "core/channel_kind.hpp"

namespace chopar::channels::mobile {
namespace {

using core::StandsFor;

// What a phone's notification shows: FCM and APNs take more, a lock screen
// shows less.
constexpr core::MessageField kMobileFields[] = {
    {"title", false, 2000, 200 * 4, StandsFor::kTitle},
    {"body", false, 8000, 2000 * 4, StandsFor::kBody},
};

const std::string& Get(const ProviderValues& values, const std::string& key) {
  static const std::string kEmpty;
  const auto it = values.find(key);
  return it == values.end() ? kEmpty : it->second;
}

int WholeNumber(const ProviderValues& values, const std::string& key, int min, int max) {
  const std::string& text = Get(values, key);
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw std::invalid_argument(key + " must be a whole number from " + std::to_string(min) +
                                " to " + std::to_string(max) + ", not \"" + text + "\"");
  }
  return value;
}

std::string Url(const ProviderValues& values, const std::string& key) {
  std::string url = Get(values, key);
  while (url.ends_with('/')) url.pop_back();
  if (!url.starts_with("https://") && !url.starts_with("http://")) {
    throw std::invalid_argument(key + " must be an http(s) URL, not \"" + url + "\"");
  }
  return url;
}

std::unique_ptr<Channel> Build(const ProviderContext& context) {
  const ProviderValues& values = context.values;
  MobileSettings settings;
  settings.public_url = context.public_url;
  settings.fcm_url = Url(values, "fcm_url");
  settings.apns_url = Url(values, "apns_url");
  settings.apns_topic = Get(values, "apns_topic");
  if (const std::string& ca = Get(values, "apns_ca_file"); !ca.empty()) settings.apns_ca_file = ca;
  settings.time_to_live = std::chrono::seconds(WholeNumber(values, "time_to_live_seconds", 0,
                                                           28 * 24 * 3600));
  settings.timeout = std::chrono::seconds(WholeNumber(values, "timeout_seconds", 1, 60));

  std::unique_ptr<FcmTokenSource> fcm;
  if (const std::string account = SecretValue(values, "fcm_service_account"); !account.empty()) {
    fcm = std::make_unique<FcmTokenSource>(ParseServiceAccountKey(account), context.http,
                                           context.clock);
  }
  std::unique_ptr<ApnsTokenCache> apns;
  if (const std::string key = SecretValue(values, "apns_key"); !key.empty()) {
    if (settings.apns_topic.empty()) {
      throw std::invalid_argument("apns_topic (the iOS app's bundle id) must be set with apns_key");
    }
    apns = std::make_unique<ApnsTokenCache>(
        LoadApnsKey(key, Get(values, "apns_key_id"), Get(values, "apns_team_id")), context.clock);
  }
  if (!fcm && !apns) {
    throw std::invalid_argument(
        "set fcm_service_account (or fcm_service_account_file) for FCM, apns_key (or "
        "apns_key_file) for APNs, or both");
  }
  return std::make_unique<MobileChannel>(std::move(settings), std::move(fcm), std::move(apns),
                                         context.http, context.clock);
}

}  // namespace

std::vector<ProviderKey> MobileKeys() {
  return {
      {.name = "fcm_service_account",
       .default_value = "",
       .doc = "the Firebase service account's JSON key (a secret)"},
      {.name = "fcm_service_account_file", .default_value = "", .doc = "or a file holding it"},
      {.name = "fcm_url", .default_value = "https://fcm.googleapis.com", .doc = "FCM's API"},
      {.name = "apns_key", .default_value = "", .doc = "the APNs .p8 signing key (a secret)"},
      {.name = "apns_key_file", .default_value = "", .doc = "or the .p8 file"},
      {.name = "apns_key_id", .default_value = "", .doc = "the key's 10-character Key ID"},
      {.name = "apns_team_id", .default_value = "", .doc = "the 10-character Team ID"},
      {.name = "apns_topic", .default_value = "", .doc = "the iOS app's bundle id"},
      {.name = "apns_url",
       .default_value = "https://api.push.apple.com",
       .doc = "APNs (https://api.sandbox.push.apple.com for development builds)"},
      {.name = "apns_ca_file",
       .default_value = "",
       .doc = "CA certificates to trust for APNs instead of the system's (a test fake only)"},
      {.name = "time_to_live_seconds",
       .default_value = "86400",
       .doc = "how long APNs keeps a notification for an offline device, 0 to 2419200"},
      {.name = "timeout_seconds", .default_value = "10", .doc = "per request, 1 to 60"},
  };
}

void RegisterMobileChannel() {
  static const bool registered = [] {
    core::RegisterChannel(
        {"mobile", "mobile_device", true, 30, "channels.mobile", kMobileFields, nullptr});
    RegisterProvider(
        {.channel = "mobile", .provider = "mobile", .keys = MobileKeys(), .factory = Build});
    return true;
  }();
  (void)registered;
}

}  // namespace chopar::channels::mobile
