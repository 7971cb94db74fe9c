#include "core/key_derivation.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <stdexcept>

#include "core/openssl_handles.hpp"

namespace chopar::core {
namespace {

// OSSL_PARAM takes non-const pointers; OpenSSL only reads them.
void* Bytes(std::string_view text) { return const_cast<char*>(text.data()); }

}  // namespace

std::string HkdfSha256(std::string_view ikm, std::string_view salt, std::string_view info,
                       std::size_t length) {
  if (length == 0 || length > 255 * 32) {
    throw std::invalid_argument("HKDF-SHA256 output must be 1 to 8160 bytes");
  }
  const EvpKdf kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  if (!kdf) throw std::runtime_error("HKDF is not available in OpenSSL");
  const EvpKdfCtx context(EVP_KDF_CTX_new(kdf.get()));
  if (!context) throw std::runtime_error("HKDF context allocation failed");
  char digest[] = "SHA256";
  OSSL_PARAM params[5];
  std::size_t n = 0;
  params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
  params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, Bytes(ikm), ikm.size());
  if (!salt.empty()) {
    params[n++] =
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, Bytes(salt), salt.size());
  }
  if (!info.empty()) {
    params[n++] =
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, Bytes(info), info.size());
  }
  params[n] = OSSL_PARAM_construct_end();
  std::string out(length, '\0');
  if (EVP_KDF_derive(context.get(), reinterpret_cast<unsigned char*>(out.data()), out.size(),
                     params) != 1) {
    throw std::runtime_error("HKDF-SHA256 failed");
  }
  return out;
}

std::string DeriveKey(std::string_view secret, KeyUse use) {
  // Labels are part of every signature made with the key: never change them.
  const std::string_view info = use == KeyUse::kSubscriberTokens ? "chopar subscriber token v2"
                                                                  : "chopar signed link v2";
  return HkdfSha256(secret, {}, info, 32);
}

}  // namespace chopar::core
