#pragma once

#include <openssl/evp.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::channels::mobile {

// Compact JWS tokens (RFC 7515) for the two mobile providers: RS256 for the
// Google OAuth assertion (FCM) and ES256 for the APNs provider token. Pure
// and thread-safe (no shared state; an EVP_PKEY may be used by several
// threads at once for signing and verifying).

enum class JwtAlgorithm {
  kRs256,  // RSASSA-PKCS1-v1_5 with SHA-256
  kEs256,  // ECDSA P-256 with SHA-256; the signature is the raw r || s
};

// base64url(header) "." base64url(claims) "." base64url(signature), signed
// with `key` (not owned; must match `algorithm`). `header` is sent as given:
// the caller puts "alg" (and "typ", "kid") in it. Throws std::runtime_error
// when OpenSSL fails, which includes a key of the wrong type.
std::string SignJwt(const nlohmann::json& header, const nlohmann::json& claims, EVP_PKEY* key,
                    JwtAlgorithm algorithm);

struct DecodedJwt {
  nlohmann::json header;
  nlohmann::json claims;
};

// The header and claims of `token` when its signature verifies with
// `public_key` under the algorithm its header names ("RS256" or "ES256"
// only: "none" and every other algorithm are refused); nullopt otherwise,
// and for any malformed token. chopar never receives such tokens: this is
// for the fakes in tests (a fake APNs or OAuth endpoint checks what it is
// sent the way the provider would) and for diagnostics.
std::optional<DecodedJwt> VerifyJwt(std::string_view token, EVP_PKEY* public_key);

}  // namespace chopar::channels::mobile
