#pragma once

namespace chopar::core {

// Throws std::runtime_error "openssl: <what>: <OpenSSL's first queued
// error>", clearing OpenSSL's error queue of this thread.
[[noreturn]] void ThrowOpenSslError(const char* what);

// ThrowOpenSslError(what) when an OpenSSL call's `rc` says it failed
// (0 or less).
inline void CheckOpenSsl(int rc, const char* what) {
  if (rc <= 0) ThrowOpenSslError(what);
}

}  // namespace chopar::core
