#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace chopar::core {

// HKDF with SHA-256 (RFC 5869): `length` bytes of output keying material
// from the input keying material `ikm`, an optional `salt` (empty: a
// string of zeros, as the RFC says) and the context `info`. `length` must be
// 1 to 8160 (255 hash lengths). Throws std::invalid_argument for a length
// out of range, std::runtime_error when OpenSSL fails. Thread-safe.
std::string HkdfSha256(std::string_view ikm, std::string_view salt, std::string_view info,
                       std::size_t length);

// What a key derived from the inbox secret signs. Each use has its own HKDF
// `info` label, so a signature made for one can never be accepted as the
// other (docs/api.md "Authentication").
enum class KeyUse {
  kSubscriberTokens,  // subscriber tokens v2
  kSignedLinks,       // unsubscribe links and preference pages
};

// The 32-byte key of `use` derived from `secret` (HkdfSha256 with an empty
// salt and the use's label). Throws as HkdfSha256. Thread-safe.
std::string DeriveKey(std::string_view secret, KeyUse use);

}  // namespace chopar::core
