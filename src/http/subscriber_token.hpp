#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::http {

// Subscriber tokens (docs/api.md "Authentication"): a browser holding the
// token of user U may read U's inbox and nothing else.
//
// v2, the tokens chopar issues:
//   "v2.<U>.<generation>.<expires>.<signature>"
// `expires` is in unix seconds (refused from that second on), `generation`
// is the user's revocation counter when the token was issued (a token whose
// generation is not the user's current one is refused: the caller checks
// that, it needs the database), and the signature is
//   base64url(HMAC-SHA256(key = DeriveKey(inbox secret, kSubscriberTokens),
//                         message = "v2.<U>.<generation>.<expires>")),
// unpadded. The key is derived for tokens alone, so no signed link can pass
// for a token nor a token for a link.
//
// v1, issued by earlier versions: "<U>." + base64url(HMAC-SHA256(key =
// inbox secret, message = decimal U)); no expiry, generation 0. Accepted
// only before a configured cutoff ([server] accept_v1_tokens_until).
//
// Numbers are canonical decimals (no sign, no leading zero). Pure
// functions; thread-safe.

// How long a token lives when the request names no ttl, and the bounds of
// the ttl a request may name (seconds).
inline constexpr std::int64_t kDefaultTokenTtl = 30 * 24 * 3600;
inline constexpr std::int64_t kMinTokenTtl = 60;
inline constexpr std::int64_t kMaxTokenTtl = 365 * 24 * 3600;

// A v2 token. Throws std::invalid_argument for an empty secret, a user id
// that is not positive, a negative generation or an expiry that is not
// positive.
std::string MakeSubscriberToken(std::string_view secret, std::int64_t user_id,
                                std::int64_t generation, std::int64_t expires_at);

// When a token is checked: the time, and the first second at which v1
// tokens are refused (nullopt: never accepted).
struct TokenCheck {
  std::int64_t now = 0;  // unix seconds
  std::optional<std::int64_t> v1_until;
};

struct VerifiedToken {
  enum class Outcome {
    kValid,
    kInvalid,     // malformed, or a signature not made with this secret (or empty secret)
    kExpired,     // v2 past its expiry
    kV1Retired,   // v1 at or after the cutoff
  };
  Outcome outcome = Outcome::kInvalid;
  std::int64_t user_id = 0;     // kValid, kExpired, kV1Retired
  std::int64_t generation = 0;  // kValid: what the caller compares with the user's counter
};

// Checks the signature (in constant time), the form and the expiry.
VerifiedToken VerifySubscriberToken(std::string_view secret, std::string_view token,
                                    const TokenCheck& check);

// The first second (unix) at which [server] accept_v1_tokens_until = `date`
// refuses v1 tokens: 00:00 UTC of the day after `date` (YYYY-MM-DD), so the
// date itself is the last day they work. nullopt for "" (v1 tokens are never
// accepted). Throws std::invalid_argument for anything but a real date in
// that form.
std::optional<std::int64_t> V1TokenCutoff(std::string_view date);

}  // namespace chopar::http
