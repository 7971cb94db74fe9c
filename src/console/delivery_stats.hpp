#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::console {

// The most minutes GET /v1/stats/deliveries covers (one day).
inline constexpr int kMaxStatsMinutes = 1440;

// How many deliveries of one channel, created in one minute, have one
// status now.
struct DeliveryMinute {
  core::TimePoint at;  // the minute's start
  std::string channel;
  std::string status;
  std::int64_t count = 0;
};

// GET /v1/stats/deliveries?minutes=n: the deliveries created in each of the
// last `minutes` minutes (the current one included), by channel and the
// status they have now; minutes without deliveries are absent. Ordered by
// at, channel, status. Throws core::RequestError 400 invalid_field for
// minutes outside 1..kMaxStatsMinutes. Thread-safe.
std::vector<DeliveryMinute> DeliveriesPerMinute(db::Pool& pool, int minutes);

// GET /v1/stats/overview: what the console's overview shows at a glance.
struct Overview {
  std::int64_t queued = 0;
  std::int64_t due = 0;  // queued and due now
  std::int64_t sending = 0;
  std::int64_t schedules_due = 0;   // enabled schedules whose firing time has passed
  double schedule_lag_seconds = 0;  // how late the most overdue one is, 0 when none
  std::map<std::string, std::int64_t> last_hour{};  // status → deliveries created in the last hour
  [[nodiscard]] std::int64_t queue_depth() const { return queued + sending; }
  // failed / (sent + failed) of the last hour; none when there are neither.
  [[nodiscard]] std::optional<double> failure_rate() const;
};

// Reads the overview, each figure from an index. Thread-safe.
Overview ReadOverview(db::Pool& pool);

}  // namespace chopar::console
