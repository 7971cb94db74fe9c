#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "channels/sms/eskiz_settings.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::sms {

// The Eskiz bearer token, shared by every worker through
// chopar.provider_tokens and cached in memory.
//
// A token comes from POST /api/auth/login (multipart form: email, password;
// answer {"data": {"token": "..."}}). Current() logs in only when neither
// memory nor the database has a token. When Eskiz answers 401 to a token,
// Refresh(that token) logs in again — single-flight: however many threads
// report the same rejected token at once, one login happens and all get its
// token; a caller that reports a token already replaced gets the
// replacement. Before logging in, the database is read again, so a token
// another process refreshed is adopted instead of logging in twice (two
// processes refreshing at the very same moment may both log in: harmless,
// Eskiz tokens live side by side).
//
// No database transaction or lock is held during the HTTP call (the
// in-process mutex is). Thread-safe. Throws db errors (lost database);
// login failures are returned, not thrown.
class EskizTokenCache {
 public:
  struct Result {
    std::optional<std::string> token;  // nullopt when no token could be had
    std::string error;                 // why, for last_error
  };

  EskizTokenCache(const EskizSettings& settings, net::HttpClient& http, db::Pool& pool,
                  const core::Clock& clock);

  Result Current();
  Result Refresh(const std::string& rejected);

  // Logins this cache performed (for metrics and tests).
  [[nodiscard]] int logins() const;

 private:
  Result LoginLocked();
  std::optional<std::string> LoadLocked();

  const EskizSettings& settings_;
  net::HttpClient& http_;
  db::Pool& pool_;
  const core::Clock& clock_;
  mutable std::mutex mutex_;
  std::optional<std::string> token_;
  int logins_ = 0;
};

}  // namespace chopar::channels::sms
