#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "db/pool.hpp"

namespace chopar::outbox {

// The state of one database's chopar.outbox (GET /v1/outbox/stats; its
// JSON is in http/outbox_routes.cpp).
struct OutboxStats {
  std::int64_t pending = 0;     // not yet dispatched
  std::int64_t dispatched = 0;  // dispatched and still retained
  // Failed publish attempts of the retained events.
  std::int64_t failed_attempts = 0;
  double oldest_pending_age_seconds = 0;  // 0 when nothing is pending

  // Sums counts; the oldest age is the larger.
  OutboxStats& operator+=(const OutboxStats& other);
};

// Reads the stats: the pending side through the partial index, the
// retained side in one pass over the table. Throws db::DbError.
OutboxStats ReadOutboxStats(db::Pool& pool);

// A named database whose outbox is reported ("chopar", "application").
struct OutboxSource {
  std::string name;
  db::Pool& pool;
};

// Sets, before every rendering of `metrics`, the gauges
//   chopar_outbox_pending{source}
//   chopar_outbox_oldest_pending_age_seconds{source}
// from `conninfo`'s outbox, on a one-connection pool of its own that lives
// as long as the registry keeps the collector (so no caller's pool can
// dangle). A failed read logs and keeps the last values.
void RegisterOutboxCollector(core::MetricsRegistry& metrics, const std::string& conninfo,
                             const std::string& source);

}  // namespace chopar::outbox
