#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::core {

// AES-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag: the
// one AEAD chopar uses, for Web Push's aes128gcm records and for the
// secrets it seals in its database (core/sealed_box.hpp).

inline constexpr std::size_t kAesGcmNonceBytes = 12;
inline constexpr std::size_t kAesGcmTagBytes = 16;

// The ciphertext of `plaintext` followed by its tag, under a 16-byte
// (AES-128) or 32-byte (AES-256) `key`, with `aad` authenticated alongside.
// Throws std::invalid_argument for a key or nonce of another length,
// std::runtime_error when OpenSSL fails. Thread-safe.
std::string AesGcmSeal(std::string_view key, std::string_view nonce, std::string_view aad,
                       std::string_view plaintext);

// The plaintext of a ciphertext-and-tag `sealed`, or nullopt when the tag
// does not match (a changed byte, another key, nonce or aad). Throws as
// AesGcmSeal for a bad key or nonce. Thread-safe.
std::optional<std::string> AesGcmOpen(std::string_view key, std::string_view nonce,
                                      std::string_view aad, std::string_view sealed);

}  // namespace chopar::core
