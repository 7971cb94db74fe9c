#pragma once

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>

#include "core/c_handle.hpp"

namespace chopar::core {

// Owners of the OpenSSL handles chopar uses (core/c_handle.hpp).
using EvpPkey = CHandle<EVP_PKEY, EVP_PKEY_free>;
using EvpPkeyCtx = CHandle<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;
using EvpCipherCtx = CHandle<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>;
using EvpMdCtx = CHandle<EVP_MD_CTX, EVP_MD_CTX_free>;
using EvpKdf = CHandle<EVP_KDF, EVP_KDF_free>;
using EvpKdfCtx = CHandle<EVP_KDF_CTX, EVP_KDF_CTX_free>;
// Cleared before it is freed: it may hold a private scalar.
using Bignum = CHandle<BIGNUM, BN_clear_free>;
using OsslParamBld = CHandle<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>;
using OsslParams = CHandle<OSSL_PARAM, OSSL_PARAM_free>;
using EcGroup = CHandle<EC_GROUP, EC_GROUP_free>;
using EcPoint = CHandle<EC_POINT, EC_POINT_free>;
using EcdsaSig = CHandle<ECDSA_SIG, ECDSA_SIG_free>;

}  // namespace chopar::core
