#include "console/delivery_stats.hpp"

#include "console/queries.hpp"
#include "core/request_error.hpp"

namespace chopar::console {

nlohmann::json DeliveriesPerMinute(db::Pool& pool, int minutes) {
  if (minutes < 1 || minutes > kMaxStatsMinutes) {
    throw core::InvalidField("minutes",
                             "minutes must be between 1 and " + std::to_string(kMaxStatsMinutes));
  }
  auto conn = pool.Acquire();
  const auto rows = conn->Exec(queries::kDeliveriesPerMinute, minutes);
  nlohmann::json items = nlohmann::json::array();
  for (int i = 0; i < rows.Rows(); ++i) {
    items.push_back({{"at", rows.String(i, "at")},
                     {"channel", rows.String(i, "channel")},
                     {"status", rows.String(i, "status")},
                     {"count", rows.Int(i, "count")}});
  }
  return {{"minutes", std::move(items)}};
}

nlohmann::json Overview(db::Pool& pool) {
  auto conn = pool.Acquire();
  const auto rows = conn->Exec(queries::kOverview);
  const std::int64_t queued = rows.Int(0, "queued");
  const std::int64_t sending = rows.Int(0, "sending");
  const auto last_hour = nlohmann::json::parse(rows.Text(0, "last_hour"));
  const std::int64_t sent = last_hour.value("sent", std::int64_t{0});
  const std::int64_t failed = last_hour.value("failed", std::int64_t{0});
  nlohmann::json failure_rate = nullptr;
  if (sent + failed > 0)
    failure_rate = static_cast<double>(failed) / static_cast<double>(sent + failed);
  return {{"queue_depth", queued + sending},
          {"queued", queued},
          {"due", rows.Int(0, "due")},
          {"sending", sending},
          {"schedules_due", rows.Int(0, "schedules_due")},
          {"schedule_lag_seconds", std::stod(rows.String(0, "schedule_lag_seconds"))},
          {"last_hour", last_hour},
          {"failure_rate", failure_rate}};
}

}  // namespace chopar::console
