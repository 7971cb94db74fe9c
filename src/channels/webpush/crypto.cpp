#include "channels/webpush/crypto.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

#include "core/aes_gcm.hpp"
#include "core/openssl_error.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::channels::webpush {
namespace {

using PkeyCtx = core::EvpPkeyCtx;
using Kdf = core::EvpKdf;
using KdfCtx = core::EvpKdfCtx;
using Bignum = core::Bignum;
using ParamBld = core::OsslParamBld;
using Params = core::OsslParams;

constexpr char kCurve[] = "prime256v1";
constexpr std::size_t kTagSize = 16;
constexpr std::size_t kNonceSize = 12;
constexpr std::size_t kKeySize = 16;

using core::CheckOpenSsl;
using core::ThrowOpenSslError;

const unsigned char* Bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }
unsigned char* Bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

// Builds an EC key of the given selection from OSSL_PARAMs; nullptr when
// OpenSSL refuses the parameters (a point off the curve, for example).
EvpPkey FromData(const P256KeyPair& pair, int selection) {
  ParamBld bld(OSSL_PARAM_BLD_new());
  if (!bld) ThrowOpenSslError("OSSL_PARAM_BLD_new");
  CheckOpenSsl(OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, kCurve, 0),
               "group name");
  CheckOpenSsl(OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY,
                                                pair.public_key.data(), pair.public_key.size()),
               "public key param");
  Bignum priv;
  if (selection == EVP_PKEY_KEYPAIR) {
    priv.reset(BN_bin2bn(Bytes(pair.private_key), static_cast<int>(pair.private_key.size()), nullptr));
    if (!priv) ThrowOpenSslError("BN_bin2bn");
    CheckOpenSsl(OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, priv.get()),
                 "private key param");
  }
  Params params(OSSL_PARAM_BLD_to_param(bld.get()));
  if (!params) ThrowOpenSslError("OSSL_PARAM_BLD_to_param");
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!ctx) ThrowOpenSslError("EVP_PKEY_CTX_new_from_name");
  CheckOpenSsl(EVP_PKEY_fromdata_init(ctx.get()), "EVP_PKEY_fromdata_init");
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, selection, params.get()) <= 0) {
    ERR_clear_error();
    return nullptr;
  }
  return EvpPkey(raw);
}

// The uncompressed public point of an EC key.
std::string PublicPoint(EVP_PKEY* key) {
  std::string point(kP256PublicKeySize, '\0');
  std::size_t length = 0;
  CheckOpenSsl(EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, Bytes(point),
                                               point.size(), &length),
               "get public key");
  if (length != kP256PublicKeySize) throw std::runtime_error("openssl: public key is not an uncompressed point");
  return point;
}

std::string Concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out.append(p);
  return out;
}

}  // namespace

P256KeyPair GenerateP256KeyPair() {
  EvpPkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) ThrowOpenSslError("EVP_PKEY_Q_keygen");
  P256KeyPair pair;
  pair.public_key = PublicPoint(key.get());
  BIGNUM* raw_priv = nullptr;
  CheckOpenSsl(EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_PRIV_KEY, &raw_priv),
               "get private key");
  const Bignum priv(raw_priv);
  pair.private_key.resize(kP256PrivateKeySize);
  CheckOpenSsl(
      BN_bn2binpad(priv.get(), Bytes(pair.private_key), static_cast<int>(kP256PrivateKeySize)),
      "BN_bn2binpad");
  return pair;
}

EvpPkey P256PublicKey(std::string_view public_key) {
  if (public_key.size() != kP256PublicKeySize || public_key[0] != 0x04) {
    throw std::invalid_argument("a P-256 public key is a 65-byte uncompressed point");
  }
  EvpPkey key = FromData({std::string(public_key), {}}, EVP_PKEY_PUBLIC_KEY);
  if (!key) throw std::invalid_argument("the public key is not a point on P-256");
  return key;
}

EvpPkey P256PrivateKey(const P256KeyPair& pair) {
  if (pair.private_key.size() != kP256PrivateKeySize) {
    throw std::invalid_argument("a P-256 private key is a 32-byte scalar");
  }
  if (pair.public_key.size() != kP256PublicKeySize || pair.public_key[0] != 0x04) {
    throw std::invalid_argument("a P-256 public key is a 65-byte uncompressed point");
  }
  EvpPkey key = FromData(pair, EVP_PKEY_KEYPAIR);
  if (!key) throw std::invalid_argument("not a valid P-256 key pair");
  PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check) ThrowOpenSslError("EVP_PKEY_CTX_new_from_pkey");
  if (EVP_PKEY_pairwise_check(check.get()) <= 0) {
    ERR_clear_error();
    throw std::invalid_argument("the private key does not match the public key");
  }
  return key;
}

std::string EcdhSharedSecret(EVP_PKEY* mine, EVP_PKEY* peer) {
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, mine, nullptr));
  if (!ctx) ThrowOpenSslError("EVP_PKEY_CTX_new_from_pkey");
  CheckOpenSsl(EVP_PKEY_derive_init(ctx.get()), "EVP_PKEY_derive_init");
  CheckOpenSsl(EVP_PKEY_derive_set_peer(ctx.get(), peer), "EVP_PKEY_derive_set_peer");
  std::size_t length = 0;
  CheckOpenSsl(EVP_PKEY_derive(ctx.get(), nullptr, &length), "EVP_PKEY_derive (size)");
  std::string secret(length, '\0');
  CheckOpenSsl(EVP_PKEY_derive(ctx.get(), Bytes(secret), &length), "EVP_PKEY_derive");
  secret.resize(length);
  return secret;
}

std::string HkdfSha256(std::string_view salt, std::string_view ikm, std::string_view info, std::size_t length) {
  Kdf kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  if (!kdf) ThrowOpenSslError("EVP_KDF_fetch HKDF");
  KdfCtx ctx(EVP_KDF_CTX_new(kdf.get()));
  if (!ctx) ThrowOpenSslError("EVP_KDF_CTX_new");
  // OSSL_PARAM takes non-const pointers but only reads input parameters.
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<char*>(ikm.data()), ikm.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<char*>(salt.data()), salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()), info.size()),
      OSSL_PARAM_construct_end(),
  };
  std::string out(length, '\0');
  CheckOpenSsl(EVP_KDF_derive(ctx.get(), Bytes(out), out.size(), params), "EVP_KDF_derive");
  return out;
}

std::string Aes128GcmSeal(std::string_view key, std::string_view nonce, std::string_view plaintext) {
  if (key.size() != kKeySize) throw std::invalid_argument("AES-128-GCM key or nonce size");
  return core::AesGcmSeal(key, nonce, {}, plaintext);
}

std::optional<std::string> Aes128GcmOpen(std::string_view key, std::string_view nonce, std::string_view sealed) {
  if (key.size() != kKeySize) throw std::invalid_argument("AES-128-GCM key or nonce size");
  return core::AesGcmOpen(key, nonce, {}, sealed);
}

PushKeySchedule DerivePushKeys(std::string_view ecdh_secret, std::string_view auth_secret,
                               std::string_view ua_public, std::string_view as_public, std::string_view salt) {
  using std::string_view_literals::operator""sv;
  const std::string key_info = Concat({"WebPush: info\0"sv, ua_public, as_public});
  PushKeySchedule keys;
  keys.ikm = HkdfSha256(auth_secret, ecdh_secret, key_info, 32);
  keys.cek = HkdfSha256(salt, keys.ikm, "Content-Encoding: aes128gcm\0"sv, kKeySize);
  keys.nonce = HkdfSha256(salt, keys.ikm, "Content-Encoding: nonce\0"sv, kNonceSize);
  return keys;
}

namespace {

std::string Encrypt(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret,
                    EVP_PKEY* sender, std::string_view sender_public, std::string_view salt) {
  if (plaintext.size() > kPushMaxPlaintext) throw std::invalid_argument("push payload too large for one record");
  if (auth_secret.size() != kPushAuthSecretSize) throw std::invalid_argument("the auth secret is 16 bytes");
  if (salt.size() != kPushSaltSize) throw std::invalid_argument("the salt is 16 bytes");
  const EvpPkey peer = P256PublicKey(ua_public);
  const std::string secret = EcdhSharedSecret(sender, peer.get());
  const PushKeySchedule keys = DerivePushKeys(secret, auth_secret, ua_public, sender_public, salt);

  std::string record(plaintext);
  record.push_back('\x02');  // the delimiter of the last (only) record; no padding after it

  std::string body;
  body.reserve(kPushHeaderSize + record.size() + kTagSize);
  body.append(salt);
  body.push_back(static_cast<char>((kPushRecordSize >> 24) & 0xFF));
  body.push_back(static_cast<char>((kPushRecordSize >> 16) & 0xFF));
  body.push_back(static_cast<char>((kPushRecordSize >> 8) & 0xFF));
  body.push_back(static_cast<char>(kPushRecordSize & 0xFF));
  body.push_back(static_cast<char>(kP256PublicKeySize));
  body.append(sender_public);
  body.append(Aes128GcmSeal(keys.cek, keys.nonce, record));
  return body;
}

}  // namespace

std::string EncryptPushPayload(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret,
                               const P256KeyPair& sender, std::string_view salt) {
  const EvpPkey mine = P256PrivateKey(sender);
  return Encrypt(plaintext, ua_public, auth_secret, mine.get(), sender.public_key, salt);
}

std::string EncryptPushPayload(std::string_view plaintext, std::string_view ua_public, std::string_view auth_secret) {
  std::string salt(kPushSaltSize, '\0');
  CheckOpenSsl(RAND_bytes(Bytes(salt), static_cast<int>(salt.size())), "RAND_bytes");
  // The ephemeral key is used as generated; no round trip through raw bytes.
  const EvpPkey ephemeral(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!ephemeral) ThrowOpenSslError("EVP_PKEY_Q_keygen");
  return Encrypt(plaintext, ua_public, auth_secret, ephemeral.get(), PublicPoint(ephemeral.get()), salt);
}

std::optional<std::string> DecryptPushPayload(std::string_view body, const P256KeyPair& ua, std::string_view auth_secret) {
  constexpr std::size_t kFixed = kPushSaltSize + 4 + 1;
  if (body.size() < kFixed || auth_secret.size() != kPushAuthSecretSize) return std::nullopt;
  const std::string_view salt = body.substr(0, kPushSaltSize);
  std::uint32_t rs = 0;
  for (std::size_t i = 0; i < 4; ++i) rs = (rs << 8) | static_cast<unsigned char>(body[kPushSaltSize + i]);
  const std::size_t idlen = static_cast<unsigned char>(body[kPushSaltSize + 4]);
  if (idlen != kP256PublicKeySize || body.size() < kFixed + idlen + kTagSize + 1) return std::nullopt;
  const std::string_view as_public = body.substr(kFixed, idlen);
  const std::string_view sealed = body.substr(kFixed + idlen);
  if (sealed.size() > rs) return std::nullopt;  // more than one record: not what a push message is

  EvpPkey peer;
  EvpPkey mine;
  try {
    peer = P256PublicKey(as_public);
    mine = P256PrivateKey(ua);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  const std::string secret = EcdhSharedSecret(mine.get(), peer.get());
  const PushKeySchedule keys = DerivePushKeys(secret, auth_secret, ua.public_key, as_public, salt);
  auto record = Aes128GcmOpen(keys.cek, keys.nonce, sealed);
  if (!record) return std::nullopt;
  while (!record->empty() && record->back() == '\0') record->pop_back();
  if (record->empty() || record->back() != '\x02') return std::nullopt;
  record->pop_back();
  return record;
}

}  // namespace chopar::channels::webpush
