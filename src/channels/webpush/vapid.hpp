#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "channels/webpush/crypto.hpp"
#include "core/clock.hpp"

namespace chopar::channels::webpush {

// VAPID (RFC 8292): how chopar identifies itself to push services.

// A VAPID key pair in the base64url forms of the [channels.push] config:
// the public key is the 65-byte uncompressed P-256 point, the private key
// the 32-byte scalar. What `chopar vapid-keys` prints.
struct VapidKeys {
  std::string public_key;
  std::string private_key;
};

// A fresh random key pair. Throws std::runtime_error if OpenSSL fails.
VapidKeys GenerateVapidKeys();

// The origin of an absolute http(s) URL as RFC 6454 serialises it, the JWT
// audience: "scheme://host" plus ":port" unless it is the scheme's default;
// scheme and host lower-cased. nullopt for anything else (relative, other
// schemes, unparsable).
std::optional<std::string> UrlOrigin(std::string_view url);

// Signs VAPID tokens and caches one per origin. Thread-safe.
class VapidSigner {
 public:
  // Tokens claim `exp` = now + kTokenLifetime (RFC 8292 allows at most 24 h)
  // and are renewed once less than kRenewBefore of that remains, so a token
  // sent is always valid for at least an hour.
  static constexpr std::chrono::hours kTokenLifetime{12};
  static constexpr std::chrono::hours kRenewBefore{1};

  // `public_key`/`private_key` in base64url as in VapidKeys; `subject` is the
  // contact the push service may use ("mailto:…" or "https:…"). Throws
  // std::invalid_argument naming the bad setting when a key does not decode,
  // has the wrong size, is not on the curve, the halves do not belong
  // together, or the subject is not a mailto: or https: URI. `clock` must
  // outlive the signer.
  VapidSigner(std::string_view public_key, std::string_view private_key, std::string subject,
              const core::Clock& clock);

  // The Authorization header value for a request to `origin` (see UrlOrigin):
  // "vapid t=<jwt>, k=<public key>". Returns the cached token while it is
  // fresh enough, otherwise signs a new one.
  std::string Authorization(const std::string& origin);

  // A newly signed ES256 JWT {"aud": audience, "exp": now + lifetime,
  // "sub": subject}; the signature is the JWS form, raw r || s (64 bytes).
  [[nodiscard]] std::string SignToken(std::string_view audience) const;

  // base64url of the public key, as sent in `k=`.
  [[nodiscard]] const std::string& public_key() const { return public_key_b64_; }

 private:
  struct Cached {
    std::string header;
    core::TimePoint expires;
  };

  std::string public_key_b64_;
  EvpPkey key_;
  std::string subject_;
  const core::Clock& clock_;
  std::mutex mutex_;
  std::map<std::string, Cached, std::less<>> cache_;
};

}  // namespace chopar::channels::webpush
