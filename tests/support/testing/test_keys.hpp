#pragma once

#include <string>
#include <string_view>

#include "core/openssl_handles.hpp"

namespace chopar::testing {

// Key material for tests of code that signs with a provider's key: fresh
// keys each call, as the PEM texts providers hand out. Throw
// std::runtime_error when OpenSSL fails.

// An RSA-2048 private key, PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), the
// form of a Google service account's private_key.
std::string NewRsaKeyPem();
// A P-256 private key, PKCS#8 PEM: the form of an APNs .p8 file.
std::string NewP256KeyPem();
// The public half of a PEM private key, as a key that holds nothing else
// (what a verifier would have).
core::EvpPkey PublicKeyOfPem(const std::string& private_key_pem);
// The public half of a PEM private key as DER SubjectPublicKeyInfo: what
// SendGrid shows (in base64) as a signed webhook's verification key.
std::string PublicKeyDerOfPem(const std::string& private_key_pem);

// `data` signed with the key of `private_key_pem` and the digest `md`:
// PKCS#1 v1.5 for RSA, DER (r, s) for EC — what a provider's webhook
// signature holds once its base64 is decoded.
std::string SignWithPem(const std::string& private_key_pem, const EVP_MD* md,
                        std::string_view data);

// A self-signed X.509 certificate (PEM) for the key of `private_key_pem`,
// named CN=`common_name`, valid from an hour ago for a day: what Amazon
// SNS's signing certificate looks like to a verifier.
std::string SelfSignedCertificatePem(const std::string& private_key_pem,
                                     const std::string& common_name);

}  // namespace chopar::testing
