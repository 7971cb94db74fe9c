#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::http {

// Subscriber tokens (docs/api.md "Conventions"): a browser holding the token of
// user U may read U's inbox and nothing else. The token is
// "U." + base64url(HMAC-SHA256(key = inbox secret, message = decimal U)),
// unpadded. Tokens do not expire; rotating the inbox secret revokes them all.
// Pure functions; thread-safe.

// The token of `user_id` (> 0). Throws std::invalid_argument for an empty
// secret or a user id that is not positive.
std::string MakeSubscriberToken(std::string_view secret, std::int64_t user_id);

// The user id a token was made for, or nullopt when the token is malformed
// (no dot, a user part that is not the canonical decimal of a positive int64,
// bad signature) or the secret is empty. The signature is compared in
// constant time.
std::optional<std::int64_t> VerifySubscriberToken(std::string_view secret, std::string_view token);

}  // namespace chopar::http
