#include "console/delivery_stats.hpp"

#include <nlohmann/json.hpp>

#include "console/queries.hpp"
#include "core/request_error.hpp"
#include "db/time_column.hpp"

namespace chopar::console {
namespace {

std::int64_t CountOf(const std::map<std::string, std::int64_t>& counts, const std::string& status) {
  const auto it = counts.find(status);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

std::vector<DeliveryMinute> DeliveriesPerMinute(db::Pool& pool, int minutes) {
  if (minutes < 1 || minutes > kMaxStatsMinutes) {
    throw core::InvalidField("minutes",
                             "minutes must be between 1 and " + std::to_string(kMaxStatsMinutes));
  }
  const auto rows = pool.Acquire()->Exec(queries::kDeliveriesPerMinute, minutes);
  std::vector<DeliveryMinute> counts;
  for (int i = 0; i < rows.Rows(); ++i) {
    counts.push_back({.at = db::TimeColumn(rows, i, "at"),
                      .channel = rows.String(i, "channel"),
                      .status = rows.String(i, "status"),
                      .count = rows.Int(i, "count")});
  }
  return counts;
}

std::optional<double> Overview::failure_rate() const {
  const std::int64_t sent = CountOf(last_hour, "sent");
  const std::int64_t failed = CountOf(last_hour, "failed");
  if (sent + failed == 0) return std::nullopt;
  return static_cast<double>(failed) / static_cast<double>(sent + failed);
}

Overview ReadOverview(db::Pool& pool) {
  const auto rows = pool.Acquire()->Exec(queries::kOverview);
  Overview overview{.queued = rows.Int(0, "queued"),
                    .due = rows.Int(0, "due"),
                    .sending = rows.Int(0, "sending"),
                    .schedules_due = rows.Int(0, "schedules_due"),
                    .schedule_lag_seconds = std::stod(rows.String(0, "schedule_lag_seconds"))};
  // {status: count}, built by json_object_agg: the statuses are few and
  // their number is bounded by the deliveries' CHECK.
  const auto last_hour = nlohmann::json::parse(rows.Text(0, "last_hour"));
  for (const auto& [status, count] : last_hour.items()) {
    overview.last_hour[status] = count.get<std::int64_t>();
  }
  return overview;
}

}  // namespace chopar::console
