#include "testing/test_keys.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <stdexcept>

#include "core/c_handle.hpp"

namespace chopar::testing {
namespace {

using Bio = core::CHandle<BIO, BIO_free>;
using Certificate = core::CHandle<X509, X509_free>;

[[noreturn]] void Fail(const char* what) {
  ERR_clear_error();
  throw std::runtime_error(std::string("openssl: ") + what);
}

// What a memory BIO holds, as text.
std::string MemoryText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string Pkcs8Pem(EVP_PKEY* key) {
  const Bio bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    Fail("PEM_write_bio_PrivateKey");
  }
  return MemoryText(bio.get());
}

core::EvpPkey PrivateKeyOfPem(const std::string& pem) {
  const Bio in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  core::EvpPkey key(in ? PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) Fail("PEM_read_bio_PrivateKey");
  return key;
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

std::string PublicKeyDerOfPem(const std::string& private_key_pem) {
  const core::EvpPkey full = PrivateKeyOfPem(private_key_pem);
  const int size = i2d_PUBKEY(full.get(), nullptr);
  if (size <= 0) Fail("i2d_PUBKEY (size)");
  std::string der(static_cast<std::size_t>(size), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_PUBKEY(full.get(), &out) != size) Fail("i2d_PUBKEY");
  return der;
}

core::EvpPkey PublicKeyOfPem(const std::string& private_key_pem) {
  const std::string der = PublicKeyDerOfPem(private_key_pem);
  const auto* in_der = reinterpret_cast<const unsigned char*>(der.data());
  core::EvpPkey pub(d2i_PUBKEY(nullptr, &in_der, static_cast<long>(der.size())));
  if (!pub) Fail("d2i_PUBKEY");
  return pub;
}

std::string SignWithPem(const std::string& private_key_pem, const EVP_MD* md,
                        std::string_view data) {
  const core::EvpPkey key = PrivateKeyOfPem(private_key_pem);
  const core::EvpMdCtx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, key.get()) != 1) {
    Fail("EVP_DigestSignInit");
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t size = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &size, bytes, data.size()) != 1) Fail("EVP_DigestSign");
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size, bytes,
                     data.size()) != 1) {
    Fail("EVP_DigestSign");
  }
  signature.resize(size);
  return signature;
}

std::string SelfSignedCertificatePem(const std::string& private_key_pem,
                                     const std::string& common_name) {
  const core::EvpPkey key = PrivateKeyOfPem(private_key_pem);
  const Certificate cert(X509_new());
  if (!cert) Fail("X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  if (X509_set_issuer_name(cert.get(), name) != 1 || X509_set_pubkey(cert.get(), key.get()) != 1 ||
      X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) {
    Fail("X509_sign");
  }
  const Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert.get()) != 1) Fail("PEM_write_bio_X509");
  return MemoryText(bio.get());
}

}  // namespace chopar::testing
