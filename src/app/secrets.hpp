#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace chopar::app {

// A secret chopar generates for itself when none is configured: read from
// <data_dir>/<name> if that file exists, else 32 random bytes (base64url)
// written there with mode 0600. `generated` tells whether it was created now
// (the caller prints a new API key once). The file is created complete or
// not at all (written beside it, then linked), so processes starting at once
// all read the one key stored. Throws std::runtime_error naming the file when
// it cannot be read or written, is empty, is not a regular file or is a
// dangling symbolic link. Thread-safe.
struct StoredSecret {
  std::string value;
  bool generated = false;
  std::filesystem::path path;
};
StoredSecret LoadOrCreateSecret(const std::filesystem::path& data_dir, const std::string& name);

// The secret stored in <data_dir>/<name>, or nullopt when there is no such
// file; never creates one. Throws std::runtime_error naming the file as
// LoadOrCreateSecret does. Thread-safe.
std::optional<std::string> ReadStoredSecret(const std::filesystem::path& data_dir,
                                            const std::string& name);

// A new secret: "chp_" + 32 random bytes in base64url. Thread-safe.
std::string NewSecretValue();

}  // namespace chopar::app
