#include "channels/provider_secret.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace chopar::channels {
namespace {

// A secret file is small: a token, a key, a service account's JSON.
constexpr std::streamsize kMaxSecretFile = 64 * 1024;

const std::string& Get(const ProviderValues& values, const std::string& key) {
  static const std::string kEmpty;
  const auto it = values.find(key);
  return it == values.end() ? kEmpty : it->second;
}

}  // namespace

std::string SecretValue(const ProviderValues& values, const std::string& key) {
  const std::string& inline_value = Get(values, key);
  const std::string& path = Get(values, key + "_file");
  if (path.empty()) return inline_value;
  if (!inline_value.empty()) {
    throw std::invalid_argument(key + " and " + key + "_file are both set; set one");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(key + "_file \"" + path + "\" cannot be read");
  std::string contents(static_cast<std::size_t>(kMaxSecretFile) + 1, '\0');
  file.read(contents.data(), kMaxSecretFile + 1);
  contents.resize(static_cast<std::size_t>(file.gcount()));
  if (contents.size() > static_cast<std::size_t>(kMaxSecretFile)) {
    throw std::invalid_argument(key + "_file \"" + path + "\" is larger than 64 KiB");
  }
  while (!contents.empty() &&
         (contents.back() == '\n' || contents.back() == '\r' || contents.back() == ' ')) {
    contents.pop_back();
  }
  if (contents.empty()) throw std::invalid_argument(key + "_file \"" + path + "\" is empty");
  return contents;
}

}  // namespace chopar::channels
