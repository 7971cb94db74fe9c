#include "channels/email/receipts/signature_check.hpp"

#include <openssl/err.h>

#include "core/openssl_error.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::channels::email::receipts {

bool SignatureHolds(EVP_PKEY* key, const EVP_MD* md, std::string_view data,
                    std::string_view signature) {
  const core::EvpMdCtx ctx(EVP_MD_CTX_new());
  if (!ctx) core::ThrowOpenSslError("EVP_MD_CTX_new");
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key) != 1) {
    // A key the digest does not fit (a DSA key, a digest the policy forbids)
    // verifies nothing; it is no failure of the process.
    ERR_clear_error();
    return false;
  }
  const int verified = EVP_DigestVerify(
      ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
      reinterpret_cast<const unsigned char*>(data.data()), data.size());
  // A forged or malformed signature queues errors that must not linger into
  // another caller's report.
  ERR_clear_error();
  return verified == 1;
}

}  // namespace chopar::channels::email::receipts
