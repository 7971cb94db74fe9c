#pragma once

#include <string>

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

}  // namespace chopar::testing
