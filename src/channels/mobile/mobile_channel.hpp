#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "channels/channel.hpp"
#include "channels/mobile/apns_auth.hpp"
#include "channels/mobile/fcm_auth.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::mobile {

// How the mobile channel reaches its push services; a value set once at
// construction from [channels.mobile].
struct MobileSettings {
  std::string public_url;  // [server] public_url: base of the link handed to the app
  std::string fcm_url = "https://fcm.googleapis.com";
  std::string apns_url = "https://api.push.apple.com";
  std::string apns_topic;  // the iOS app's bundle id
  // The CA certificates to trust for APNs instead of the system's (a test
  // fake's self-signed certificate); unset: the system's.
  std::optional<std::string> apns_ca_file;
  // How long APNs keeps a notification for a device that is offline.
  std::chrono::seconds time_to_live{86400};
  std::chrono::milliseconds timeout{10000};  // per request
};

// The `mobile` channel (docs/api.md "Mobile push"): each message goes to
// every device of the user at once — an iOS device whose token is an APNs
// device token through APNs (HTTP/2, a provider token), every other device
// (Android, web, an iOS app registered through Firebase) through FCM HTTP
// v1 (an OAuth access token from the service account). The message's
// outcome: sent when one device took it (the gone ones are listed to be
// removed); address gone when every device is gone; otherwise retried when
// one can be (a service busy, throttling or refusing a stale credential,
// which is renewed first), failed when none can. A request that got no
// answer after it was sent makes the message's outcome unknown unless
// another device took it: sending again could show it twice. Either
// service may be missing (null): its devices are then not sent to.
// Thread-safe.
class MobileChannel final : public Channel {
 public:
  MobileChannel(MobileSettings settings, std::unique_ptr<FcmTokenSource> fcm,
                std::unique_ptr<ApnsTokenCache> apns, net::HttpClient& http,
                const core::Clock& clock);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "mobile"; }

 private:
  MobileSettings settings_;
  std::unique_ptr<FcmTokenSource> fcm_;
  std::unique_ptr<ApnsTokenCache> apns_;
  net::HttpClient& http_;
  const core::Clock& clock_;
};

}  // namespace chopar::channels::mobile
