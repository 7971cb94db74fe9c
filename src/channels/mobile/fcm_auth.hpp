#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/openssl_handles.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::mobile {

// How chopar authenticates to FCM HTTP v1: a Google service account signs an
// RS256 JWT assertion, Google's OAuth endpoint exchanges it for an access
// token (RFC 7523), and every send carries that token as a bearer token.

// The parts of a service-account JSON key that chopar uses. Move-only (owns
// the private key).
struct ServiceAccountKey {
  std::string project_id;
  std::string client_email;
  std::string token_uri;      // the OAuth endpoint, also the assertion's audience
  core::EvpPkey private_key;  // RSA
};

// Parses the JSON key Google issues for a service account: "type" must be
// "service_account"; "project_id", "client_email", "token_uri" and
// "private_key" (a PEM RSA private key) non-empty strings; token_uri an
// https:// URL (or http:// to 127.0.0.1 or localhost, for local fakes).
// Other fields are ignored. Throws std::invalid_argument naming the field
// that is missing or wrong; the message never holds any part of the key
// text (not even for malformed JSON, whose parser would quote it).
ServiceAccountKey ParseServiceAccountKey(std::string_view json);

// The OAuth scope FCM sends need.
inline constexpr std::string_view kFcmScope = "https://www.googleapis.com/auth/firebase.messaging";
// How long an assertion is valid; Google accepts at most an hour.
inline constexpr std::chrono::seconds kFcmAssertionLifetime{3600};

// A newly signed RS256 assertion: header {"alg":"RS256","typ":"JWT"},
// claims {"iss": client_email, "scope": kFcmScope, "aud": token_uri,
// "iat": now, "exp": now + kFcmAssertionLifetime} (unix seconds). Throws
// std::runtime_error when OpenSSL fails. Thread-safe.
std::string SignFcmAssertion(const ServiceAccountKey& key, core::TimePoint now);

// What FcmTokenSource::Get returns: the access token, or why there is none.
struct FcmTokenResult {
  std::optional<std::string> access_token;  // set on success only
  // On failure, what went wrong: the HTTP status and the OAuth "error" and
  // "error_description" of the answer, or the transport error. Never holds a
  // token or the assertion (nor the rest of the answer's body).
  std::string error;
  // The endpoint's Retry-After, when it sent one.
  std::optional<std::chrono::seconds> retry_after;

  [[nodiscard]] bool ok() const { return access_token.has_value(); }
};

// Hands out FCM access tokens, fetching one from the key's token_uri when
// none is cached and caching it until kRefreshBefore before it expires.
// Thread-safe: concurrent callers that find no token wait for one fetch
// rather than each making its own. Failures are not cached (the next Get
// tries again) and never logged; they are returned for the caller to turn
// into a retry. Nothing here logs a token.
class FcmTokenSource {
 public:
  static constexpr std::chrono::minutes kRefreshBefore{5};

  // `http` and `clock` are not owned and must outlive the source.
  FcmTokenSource(ServiceAccountKey key, net::HttpClient& http, const core::Clock& clock);

  // The cached token, or a fresh one (one POST to token_uri, blocking up to
  // the request timeout).
  [[nodiscard]] FcmTokenResult Get();

  // Forgets `access_token` if it is the cached one (FCM answered 401 to it),
  // so the next Get fetches another. A token that was already replaced is
  // left alone, so a late 401 does not discard a fresh one.
  void Invalidate(const std::string& access_token);

  [[nodiscard]] const std::string& project_id() const { return key_.project_id; }

 private:
  struct Cached {
    std::string token;
    core::TimePoint refresh_at;
  };

  [[nodiscard]] std::optional<std::string> Fresh() const;  // with mutex_ held
  FcmTokenResult Fetch();

  ServiceAccountKey key_;
  net::HttpClient& http_;
  const core::Clock& clock_;
  std::mutex fetch_mutex_;  // one fetch at a time; taken before mutex_
  mutable std::mutex mutex_;
  std::optional<Cached> cached_;
};

}  // namespace chopar::channels::mobile
