#include "core/aes_gcm.hpp"

#include <openssl/err.h>

#include <stdexcept>

#include "core/openssl_error.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::core {
namespace {

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* Bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

int Length(std::string_view s) {
  if (s.size() > static_cast<std::size_t>(INT32_MAX)) throw std::invalid_argument("AES-GCM input");
  return static_cast<int>(s.size());
}

const EVP_CIPHER* CipherFor(std::string_view key, std::string_view nonce) {
  if (nonce.size() != kAesGcmNonceBytes) throw std::invalid_argument("AES-GCM nonce size");
  if (key.size() == 16) return EVP_aes_128_gcm();
  if (key.size() == 32) return EVP_aes_256_gcm();
  throw std::invalid_argument("AES-GCM key size");
}

}  // namespace

std::string AesGcmSeal(std::string_view key, std::string_view nonce, std::string_view aad,
                       std::string_view plaintext) {
  const EVP_CIPHER* cipher = CipherFor(key, nonce);
  EvpCipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) ThrowOpenSslError("EVP_CIPHER_CTX_new");
  CheckOpenSsl(EVP_EncryptInit_ex2(ctx.get(), cipher, Bytes(key), Bytes(nonce), nullptr),
               "EVP_EncryptInit_ex2");
  int written = 0;
  if (!aad.empty()) {
    CheckOpenSsl(EVP_EncryptUpdate(ctx.get(), nullptr, &written, Bytes(aad), Length(aad)), "aad");
  }
  std::string out(plaintext.size() + kAesGcmTagBytes, '\0');
  written = 0;
  CheckOpenSsl(
      EVP_EncryptUpdate(ctx.get(), Bytes(out), &written, Bytes(plaintext), Length(plaintext)),
      "EVP_EncryptUpdate");
  int final_bytes = 0;
  CheckOpenSsl(EVP_EncryptFinal_ex(ctx.get(), Bytes(out) + written, &final_bytes),
               "EVP_EncryptFinal_ex");
  written += final_bytes;
  CheckOpenSsl(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG,
                                   static_cast<int>(kAesGcmTagBytes), Bytes(out) + written),
               "EVP_CTRL_GCM_GET_TAG");
  out.resize(static_cast<std::size_t>(written) + kAesGcmTagBytes);
  return out;
}

std::optional<std::string> AesGcmOpen(std::string_view key, std::string_view nonce,
                                      std::string_view aad, std::string_view sealed) {
  const EVP_CIPHER* cipher = CipherFor(key, nonce);
  if (sealed.size() < kAesGcmTagBytes) return std::nullopt;
  const std::string_view ciphertext = sealed.substr(0, sealed.size() - kAesGcmTagBytes);
  std::string tag(sealed.substr(ciphertext.size()));
  EvpCipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) ThrowOpenSslError("EVP_CIPHER_CTX_new");
  CheckOpenSsl(EVP_DecryptInit_ex2(ctx.get(), cipher, Bytes(key), Bytes(nonce), nullptr),
               "EVP_DecryptInit_ex2");
  int written = 0;
  if (!aad.empty()) {
    CheckOpenSsl(EVP_DecryptUpdate(ctx.get(), nullptr, &written, Bytes(aad), Length(aad)), "aad");
  }
  std::string out(ciphertext.size() + kAesGcmTagBytes, '\0');
  written = 0;
  CheckOpenSsl(
      EVP_DecryptUpdate(ctx.get(), Bytes(out), &written, Bytes(ciphertext), Length(ciphertext)),
      "EVP_DecryptUpdate");
  CheckOpenSsl(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG,
                                   static_cast<int>(kAesGcmTagBytes), Bytes(tag)),
               "EVP_CTRL_GCM_SET_TAG");
  int final_bytes = 0;
  if (EVP_DecryptFinal_ex(ctx.get(), Bytes(out) + written, &final_bytes) <= 0) {
    ERR_clear_error();
    return std::nullopt;
  }
  out.resize(static_cast<std::size_t>(written + final_bytes));
  return out;
}

}  // namespace chopar::core
