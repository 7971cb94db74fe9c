#include "outbox/outbox_stats.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <memory>

#include "outbox/queries.hpp"

namespace chopar::outbox {

OutboxStats& OutboxStats::operator+=(const OutboxStats& other) {
  pending += other.pending;
  dispatched += other.dispatched;
  failed_attempts += other.failed_attempts;
  oldest_pending_age_seconds =
      std::max(oldest_pending_age_seconds, other.oldest_pending_age_seconds);
  return *this;
}

OutboxStats ReadOutboxStats(db::Pool& pool) {
  auto conn = pool.Acquire();
  const std::array<db::Statement, 2> statements = {db::Statement{queries::kPendingStats, {}},
                                                   db::Statement{queries::kRetainedStats, {}}};
  const std::vector<db::Result> results = conn->ExecPipeline(statements);
  OutboxStats stats;
  stats.pending = results[0].Int(0, "pending");
  stats.oldest_pending_age_seconds = results[0].Double(0, "oldest_pending_age_seconds");
  stats.dispatched = results[1].Int(0, "dispatched");
  stats.failed_attempts = results[1].Int(0, "failed_attempts");
  return stats;
}

void RegisterOutboxCollector(core::MetricsRegistry& metrics, const std::string& conninfo,
                             const std::string& source) {
  const core::Labels labels = {{"source", source}};
  core::Gauge& pending =
      metrics.GetGauge("chopar_outbox_pending", "Outbox events not yet dispatched.", labels);
  core::Gauge& oldest =
      metrics.GetGauge("chopar_outbox_oldest_pending_age_seconds",
                       "Age of the oldest outbox event not yet dispatched.", labels);
  auto pool = std::make_shared<db::Pool>(conninfo, 1, std::chrono::seconds(1));
  metrics.AddCollector([pool, &pending, &oldest, source] {
    try {
      auto conn = pool->Acquire();
      const db::Result row = conn->Exec(queries::kPendingStats);
      pending.Set(static_cast<double>(row.Int(0, "pending")));
      oldest.Set(row.Double(0, "oldest_pending_age_seconds"));
    } catch (const std::exception& e) {
      spdlog::warn("outbox gauges of {} not refreshed: {}", source, e.what());
    }
  });
}

}  // namespace chopar::outbox
