#include "core/openssl_error.hpp"

#include <openssl/err.h>

#include <stdexcept>
#include <string>

namespace chopar::core {

void ThrowOpenSslError(const char* what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  std::string message = std::string("openssl: ") + what;
  if (code != 0) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    message += ": ";
    message += buffer;
  }
  throw std::runtime_error(message);
}

}  // namespace chopar::core
