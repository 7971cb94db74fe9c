#include "app/secrets.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/encoding.hpp"

namespace chopar::app {

StoredSecret LoadOrCreateSecret(const std::filesystem::path& data_dir, const std::string& name) {
  StoredSecret secret;
  secret.path = data_dir / name;
  std::filesystem::create_directories(data_dir);
  if (std::ifstream in(secret.path); in) {
    std::getline(in, secret.value);
    if (secret.value.empty())
      throw std::runtime_error(secret.path.string() + " is empty; delete it to generate a new one");
    return secret;
  }
  secret.value = "chp_" + core::Base64UrlEncode(core::RandomBytes(32));
  // Written in full to a file of this process's own, then linked under the
  // name: a process starting at the same moment either links first (and this
  // one reads its key) or finds the name absent — never a half-written file.
  const std::filesystem::path temporary =
      data_dir / (name + "." + std::to_string(::getpid()) + ".tmp");
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + temporary.string());
  const std::string line = secret.value + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  const int linked = written ? ::link(temporary.c_str(), secret.path.c_str()) : -1;
  const int link_error = errno;
  ::unlink(temporary.c_str());
  if (!written) throw std::runtime_error("cannot write " + temporary.string());
  if (linked != 0) {
    if (link_error == EEXIST) return LoadOrCreateSecret(data_dir, name);
    throw std::runtime_error("cannot create " + secret.path.string());
  }
  secret.generated = true;
  return secret;
}

}  // namespace chopar::app
