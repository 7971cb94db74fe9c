#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/openssl_handles.hpp"

namespace chopar::channels::webpush {

// Web Push cryptography on OpenSSL 3 EVP: P-256 keys, ECDH, HKDF-SHA256,
// AES-128-GCM, and the message encryption of RFC 8291 (the "aes128gcm"
// content coding of RFC 8188). All byte strings are raw bytes (not base64)
// unless a name says otherwise. Every function is thread-safe (no shared
// state) and throws std::runtime_error only when OpenSSL itself fails;
// malformed input is reported as std::invalid_argument or as nullopt, as
// each function says.

using EvpPkey = core::EvpPkey;

inline constexpr std::size_t kP256PublicKeySize = 65;   // 0x04 || x || y
inline constexpr std::size_t kP256PrivateKeySize = 32;  // the scalar
inline constexpr std::size_t kPushAuthSecretSize = 16;
inline constexpr std::size_t kPushSaltSize = 16;
inline constexpr std::uint32_t kPushRecordSize = 4096;
// salt(16) || rs(4) || idlen(1) || keyid(65)
inline constexpr std::size_t kPushHeaderSize = 86;
// The largest plaintext that fits the single 4096-octet record: the record
// holds the plaintext, the 0x02 delimiter and the 16-octet tag; the header
// counts against the push service's 4096-octet limit too.
inline constexpr std::size_t kPushMaxPlaintext = kPushRecordSize - kPushHeaderSize - 1 - 16;

// A P-256 key pair in its raw forms.
struct P256KeyPair {
  std::string public_key;   // 65 bytes, uncompressed point
  std::string private_key;  // 32 bytes, big-endian scalar
};

// A fresh random key pair.
P256KeyPair GenerateP256KeyPair();

// The public key of a raw uncompressed point. Throws std::invalid_argument if
// it is not 65 bytes or not a point on the curve.
EvpPkey P256PublicKey(std::string_view public_key);
// A private key from its raw parts. Throws std::invalid_argument if a part
// has the wrong size or the two halves do not belong together.
EvpPkey P256PrivateKey(const P256KeyPair& pair);

// The raw ECDH shared secret (the x coordinate, 32 bytes).
std::string EcdhSharedSecret(EVP_PKEY* mine, EVP_PKEY* peer);

// HKDF-SHA256 (RFC 5869), extract then expand, `length` bytes.
std::string HkdfSha256(std::string_view salt, std::string_view ikm, std::string_view info, std::size_t length);

// AES-128-GCM with a 12-byte nonce and no associated data: ciphertext || tag.
std::string Aes128GcmSeal(std::string_view key, std::string_view nonce, std::string_view plaintext);
// The inverse; nullopt when the tag does not verify.
std::optional<std::string> Aes128GcmOpen(std::string_view key, std::string_view nonce, std::string_view sealed);

// The key schedule of RFC 8291 §3.4 / RFC 8188 §2.2.
struct PushKeySchedule {
  std::string ikm;    // 32 bytes: HKDF(auth, ecdh, "WebPush: info\0" || ua || as)
  std::string cek;    // 16 bytes
  std::string nonce;  // 12 bytes
};
PushKeySchedule DerivePushKeys(std::string_view ecdh_secret, std::string_view auth_secret,
                               std::string_view ua_public, std::string_view as_public, std::string_view salt);

// RFC 8291 encryption of `plaintext` for the subscription (`ua_public` is
// its p256dh, `auth_secret` its auth) with the given sender (ephemeral) key
// pair and salt: one record of size 4096, the 0x02 delimiter, no further
// padding; header salt || rs || idlen(65) || sender public key. Exposed so
// tests can inject the key and salt. Throws std::invalid_argument for keys
// or salt of the wrong size, a point off the curve, or a plaintext longer
// than kPushMaxPlaintext.
std::string EncryptPushPayload(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret,
                               const P256KeyPair& sender, std::string_view salt);
// The same with a fresh ephemeral key and random salt: what is sent.
std::string EncryptPushPayload(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret);

// The user agent's side: decrypts an aes128gcm body with the subscription's
// key pair and auth secret. nullopt when the body is malformed, the key
// is not a valid point, the tag does not verify or the padding is wrong.
// For fake push services in tests and for diagnostics.
std::optional<std::string> DecryptPushPayload(std::string_view body, const P256KeyPair& ua, std::string_view auth_secret);

}  // namespace chopar::channels::webpush
