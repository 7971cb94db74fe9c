#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace chopar::core {

// Secrets chopar keeps in its database (a Slack workspace's bot token) are
// sealed with AES-256-GCM: a version byte, a random 12-byte nonce, the
// ciphertext and the 16-byte tag. `context` (the row's key, "slack:T0123")
// is authenticated but not stored, so a sealed value copied to another row
// does not open there.

inline constexpr std::size_t kSealedBoxKeyBytes = 32;
// What sealing adds to the plaintext's length.
inline constexpr std::size_t kSealedBoxOverhead = 1 + 12 + 16;

// `plaintext` sealed under the 32-byte `key`. Throws std::invalid_argument
// for a key of another length, std::runtime_error when OpenSSL fails.
// Thread-safe.
std::string Seal(std::string_view key, std::string_view context, std::string_view plaintext);

// The plaintext of `sealed`, or nullopt when it was not sealed by Seal under
// this key and context, or was changed since. Throws as Seal for a bad key.
// Thread-safe.
std::optional<std::string> Open(std::string_view key, std::string_view context,
                                std::string_view sealed);

}  // namespace chopar::core
