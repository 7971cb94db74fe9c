#include "testing/test_keys.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <stdexcept>

#include "core/c_handle.hpp"

namespace chopar::testing {
namespace {

using Bio = core::CHandle<BIO, BIO_free>;

[[noreturn]] void Fail(const char* what) {
  ERR_clear_error();
  throw std::runtime_error(std::string("openssl: ") + what);
}

std::string Pkcs8Pem(EVP_PKEY* key) {
  const Bio bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    Fail("PEM_write_bio_PrivateKey");
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

std::string NewRsaKeyPem() {
  const core::EvpPkey key(
      EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(2048)));
  if (!key) Fail("RSA keygen");
  return Pkcs8Pem(key.get());
}

std::string NewP256KeyPem() {
  const core::EvpPkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) Fail("P-256 keygen");
  return Pkcs8Pem(key.get());
}

core::EvpPkey PublicKeyOfPem(const std::string& private_key_pem) {
  const Bio in(BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  const core::EvpPkey full(in ? PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr)
                              : nullptr);
  if (!full) Fail("PEM_read_bio_PrivateKey");
  const int size = i2d_PUBKEY(full.get(), nullptr);
  if (size <= 0) Fail("i2d_PUBKEY (size)");
  std::string der(static_cast<std::size_t>(size), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_PUBKEY(full.get(), &out) != size) Fail("i2d_PUBKEY");
  const auto* in_der = reinterpret_cast<const unsigned char*>(der.data());
  core::EvpPkey pub(d2i_PUBKEY(nullptr, &in_der, size));
  if (!pub) Fail("d2i_PUBKEY");
  return pub;
}

}  // namespace chopar::testing
