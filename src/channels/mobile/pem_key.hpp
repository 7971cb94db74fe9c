#pragma once

#include <string_view>

#include "core/openssl_handles.hpp"

namespace chopar::channels::mobile {

// The private key in a PEM text ("PRIVATE KEY", PKCS#8, as Google's
// service-account keys and Apple's .p8 files hold it; "RSA PRIVATE KEY" and
// "EC PRIVATE KEY" too), or a null handle when the text holds none or the
// key is encrypted (no passphrase is ever asked for). Never throws and never
// reports why, so no caller can put a piece of the key into an error
// message. Thread-safe.
core::EvpPkey PrivateKeyFromPem(std::string_view pem);

}  // namespace chopar::channels::mobile
