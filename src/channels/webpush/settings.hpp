#pragma once

#include <chrono>
#include <string>

namespace chopar::channels::webpush {

// How chopar sends Web Push; a value, set once at construction. app::Config
// holds [channels.push] as this type (vapid_public_key, vapid_private_key,
// subject, allow_http_endpoints, max_subscriptions_per_user,
// timeout_seconds, max_in_flight, with these defaults); public_url comes
// from [server] public_url.
struct WebPushSettings {
  std::string vapid_public_key;                      // base64url, 65-byte uncompressed P-256 point
  std::string vapid_private_key;                     // base64url, 32-byte scalar; secret
  std::string subject = "mailto:admin@example.com";  // "mailto:…" or "https:…", the JWT `sub`
  std::string public_url;  // [server] public_url: base of the payload's url
  // Plain http:// endpoints are refused (permanent failure) unless this is
  // set: it exists only so tests can use a local push service.
  bool allow_http_endpoints = false;
  // Subscriptions one user may have (each is one more request per push).
  int max_subscriptions_per_user = 10;
  int ttl_seconds = 86400;                   // the TTL header: how long the push service keeps it
  std::chrono::milliseconds timeout{10000};  // per push request, from its own start
  // Push requests in flight at once over every Send of the channel (every
  // delivery loop of the process); the others wait for a free slot, their
  // timeout not yet running. 1..kMaxPushInFlight.
  int max_in_flight = 64;
};

// The largest max_in_flight.
inline constexpr int kMaxPushInFlight = 1024;

}  // namespace chopar::channels::webpush
