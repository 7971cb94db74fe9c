#include "app/secrets.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "core/encoding.hpp"

namespace chopar::app {

StoredSecret LoadOrCreateSecret(const std::filesystem::path& data_dir, const std::string& name) {
  StoredSecret secret;
  secret.path = data_dir / name;
  std::filesystem::create_directories(data_dir);
  if (std::ifstream in(secret.path); in) {
    std::getline(in, secret.value);
    if (secret.value.empty()) throw std::runtime_error(secret.path.string() + " is empty; delete it to generate a new one");
    return secret;
  }
  secret.value = "chp_" + core::Base64UrlEncode(core::RandomBytes(32));
  // O_EXCL: two processes starting together must not overwrite each other's key.
  const int fd = ::open(secret.path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return LoadOrCreateSecret(data_dir, name);
    throw std::runtime_error("cannot create " + secret.path.string());
  }
  const std::string line = secret.value + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!written) throw std::runtime_error("cannot write " + secret.path.string());
  secret.generated = true;
  return secret;
}

}  // namespace chopar::app
