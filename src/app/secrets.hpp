#pragma once

#include <filesystem>
#include <string>

namespace chopar::app {

// A secret chopar generates for itself when none is configured: read from
// <data_dir>/<name> if that file exists, else 32 random bytes (base64url)
// written there with mode 0600. `generated` tells whether it was created now
// (the caller prints a new API key once). Throws std::runtime_error when the
// file cannot be read or written.
struct StoredSecret {
  std::string value;
  bool generated = false;
  std::filesystem::path path;
};
StoredSecret LoadOrCreateSecret(const std::filesystem::path& data_dir, const std::string& name);

}  // namespace chopar::app
