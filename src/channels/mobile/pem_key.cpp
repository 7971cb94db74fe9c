#include "channels/mobile/pem_key.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>

#include "core/c_handle.hpp"

namespace chopar::channels::mobile {
namespace {

using Bio = core::CHandle<BIO, BIO_free>;

// Without a callback OpenSSL would prompt on the terminal for the
// passphrase of an encrypted key; a service has nobody to answer it.
int NoPassphrase(char* /*buffer*/, int /*size*/, int /*writing*/, void* /*user*/) { return 0; }

}  // namespace

core::EvpPkey PrivateKeyFromPem(std::string_view pem) {
  if (pem.empty() || pem.size() > INT_MAX) return nullptr;
  const Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  core::EvpPkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  // The error queue would name the failing PEM routine only, but it must not
  // linger into another caller's report.
  ERR_clear_error();
  return key;
}

}  // namespace chopar::channels::mobile
