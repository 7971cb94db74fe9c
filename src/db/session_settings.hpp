#pragma once

#include <chrono>
#include <string>

namespace chopar::db {

// The limits every chopar database session runs under: the [database]
// section's connect_timeout_seconds and statement_timeout_seconds
// (docs/configuration.md). A value, set once.
struct SessionSettings {
  // How long opening a connection may take (TCP, TLS, authentication and the
  // server's first answer) before Connection::Open throws ConnectionError,
  // rather than hanging on a server that accepted the socket and went quiet.
  std::chrono::seconds connect_timeout{10};
  // The longest one statement may run before the server cancels it (then
  // db::QueryCanceled); zero: no limit. Migrations lift it for their own
  // session (an index built on a big table takes longer).
  std::chrono::seconds statement_timeout{60};
};

// `conninfo` (a URL or key=value pairs) rewritten as key=value pairs with
// `settings` written in: connect_timeout, and statement_timeout appended to
// the `options` it already has. Every connection opened from the result, and
// from anything derived from it (a pool's own conninfo, the LISTEN
// connections of the loops), runs under these limits; other parameters are
// kept as they were. A plain database name counts as dbname. Throws
// std::invalid_argument when libpq cannot parse `conninfo`. Pure.
std::string WithSessionSettings(const std::string& conninfo, const SessionSettings& settings);

// The value of the connection parameter `keyword` in `conninfo` ("" when it
// is not set or `conninfo` does not parse).
std::string ConninfoValue(const std::string& conninfo, const std::string& keyword);

}  // namespace chopar::db
