#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::channels::mobile {

// APNs token-based authentication: requests carry "authorization: bearer
// <ES256 JWT>" signed with the team's .p8 key.

// An APNs signing key with the ids Apple issued it under. Move-only (owns
// the private key).
struct ApnsKey {
  std::string key_id;         // the 10-character Key ID
  std::string team_id;        // the 10-character Team ID
  core::EvpPkey private_key;  // P-256
};

// Loads a .p8 key (PEM PKCS#8, an EC P-256 private key). Throws
// std::invalid_argument when the text holds no such key or an id is not 10
// ASCII letters and digits; the message never holds any part of the key.
ApnsKey LoadApnsKey(std::string_view p8_pem, std::string key_id, std::string team_id);

// A newly signed provider token: header {"alg":"ES256","kid":key_id},
// claims {"iss":team_id,"iat":now} (unix seconds). Throws std::runtime_error
// when OpenSSL fails. Thread-safe.
std::string SignApnsProviderToken(const ApnsKey& key, core::TimePoint now);

// Hands out the provider token, signing a new one once the cached one is
// kRefreshAfter old. Apple refuses a token older than an hour
// (ExpiredProviderToken) and one replaced more often than every 20 minutes
// (TooManyProviderTokenUpdates); 40 minutes keeps clear of both.
// Thread-safe.
class ApnsTokenCache {
 public:
  static constexpr std::chrono::minutes kRefreshAfter{40};
  static constexpr std::chrono::minutes kMinRefreshInterval{20};

  // `clock` is not owned and must outlive the cache.
  ApnsTokenCache(ApnsKey key, const core::Clock& clock);

  // The cached token, or a newly signed one when there is none or it is
  // kRefreshAfter old. Throws std::runtime_error when OpenSSL fails.
  [[nodiscard]] std::string Token();

  // APNs refused `token` (ExpiredProviderToken, InvalidProviderToken): the
  // next Token() signs a new one — but only when `token` is the cached one
  // and at least kMinRefreshInterval old. A younger one is kept, as Apple
  // would refuse its replacement, and one signed with the same key and
  // clock moments later would not fare better (a wrong key or a skewed
  // clock). Returns whether the token was dropped.
  bool Invalidate(const std::string& token);

 private:
  struct Cached {
    std::string token;
    core::TimePoint issued_at;
  };

  ApnsKey key_;
  const core::Clock& clock_;
  std::mutex mutex_;
  std::optional<Cached> cached_;
};

}  // namespace chopar::channels::mobile
