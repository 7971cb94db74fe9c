#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"

namespace chopar::console {

// One suppressed address (docs/api.md "Suppressions").
struct Suppression {
  std::int64_t id = 0;
  std::string channel;  // "email" or "sms"
  std::string address;  // lower-case email, or E.164 phone
  std::string reason;   // "bounce", "complaint" or "manual"
  std::optional<std::string> provider;
  std::string detail;
  core::TimePoint since;
};

// GET /v1/suppressions?channel=&address=&limit=&cursor=: newest first,
// keyset-paginated by id; `address` matches in lower case. limit 1..500.
// Throws core::RequestError invalid_field for a channel other than email or
// sms, a bad limit or cursor. Thread-safe.
core::Page<Suppression> ListSuppressions(db::Pool& pool, const std::optional<std::string>& channel,
                                         const std::optional<std::string>& address, int limit,
                                         const std::optional<std::string>& cursor);

// DELETE /v1/suppressions/{channel}/{address}: whether an entry was
// removed (the address is chosen again from the next delivery on).
bool RemoveSuppression(db::Pool& pool, const std::string& channel, const std::string& address);

}  // namespace chopar::console
