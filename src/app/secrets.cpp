#include "app/secrets.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/encoding.hpp"

namespace chopar::app {
namespace {

namespace fs = std::filesystem;

// Closes a descriptor on every path out.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void Fail(const fs::path& path, const std::string& what) {
  throw std::runtime_error(path.string() + ": " + what);
}

// The first line of `path`; nullopt when there is no such file.
std::optional<std::string> ReadFirstLine(const fs::path& path) {
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    Fail(path, std::string("cannot read: ") + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    Fail(path, "not a regular file; remove it to generate a new one");
  }
  std::string text;
  char chunk[256];
  for (;;) {
    const ssize_t n = ::read(fd.get(), chunk, sizeof(chunk));
    if (n < 0) Fail(path, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    if (text.find('\n') != std::string::npos || text.size() > 4096) break;
  }
  return text.substr(0, text.find('\n'));
}

// Writes `line` to a new file beside `path` and links it there: the file
// appears complete or not at all. False if `path` already exists.
bool CreateAtomically(const fs::path& path, const std::string& line) {
  std::string temp = (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
  const FileDescriptor fd(::mkstemp(temp.data()));  // mode 0600
  if (fd.get() < 0)
    Fail(path, std::string("cannot create a file beside it: ") + std::strerror(errno));
  const bool written =
      ::write(fd.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
      ::fsync(fd.get()) == 0;
  const int error = errno;
  const bool linked = written && ::link(temp.c_str(), path.c_str()) == 0;
  const int link_error = errno;
  ::unlink(temp.c_str());
  if (!written) Fail(path, std::string("cannot write: ") + std::strerror(error));
  if (linked) return true;
  if (link_error == EEXIST) return false;
  Fail(path, std::string("cannot create: ") + std::strerror(link_error));
}

}  // namespace

std::optional<std::string> ReadStoredSecret(const fs::path& data_dir, const std::string& name) {
  const fs::path path = data_dir / name;
  if (auto value = ReadFirstLine(path)) {
    if (value->empty()) Fail(path, "the file is empty; delete it to generate a new one");
    return value;
  }
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    Fail(path, "a symbolic link to " + fs::read_symlink(path, ec).string() +
                   ", which does not exist; fix or remove it");
  }
  return std::nullopt;
}

std::string NewSecretValue() { return "chp_" + core::Base64UrlEncode(core::RandomBytes(32)); }

StoredSecret LoadOrCreateSecret(const fs::path& data_dir, const std::string& name) {
  StoredSecret secret;
  secret.path = data_dir / name;
  fs::create_directories(data_dir);
  // Twice at most: when another process created the file between our read
  // and our link, the second read finds it.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (auto value = ReadStoredSecret(data_dir, name)) {
      secret.value = std::move(*value);
      return secret;
    }
    const std::string value = NewSecretValue();
    if (CreateAtomically(secret.path, value + "\n")) {
      secret.value = value;
      secret.generated = true;
      return secret;
    }
  }
  Fail(secret.path, "appeared and vanished while being created; start again");
}

}  // namespace chopar::app
