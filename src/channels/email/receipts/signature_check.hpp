#pragma once

#include <openssl/evp.h>

#include <string_view>

namespace chopar::channels::email::receipts {

// Whether `signature` is `key`'s signature of `data` with the digest `md`:
// PKCS#1 v1.5 for an RSA key, DER (r, s) for an EC key. False for any
// signature that does not verify, a malformed one included; OpenSSL's
// error queue is left empty. Throws std::runtime_error only when OpenSSL
// fails for want of memory. Thread-safe for a key shared read-only.
bool SignatureHolds(EVP_PKEY* key, const EVP_MD* md, std::string_view data,
                    std::string_view signature);

}  // namespace chopar::channels::email::receipts
