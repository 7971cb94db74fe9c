#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace chopar::delivery {

// What a process knows of the horizon of active deliveries (migration 0037,
// chopar.delivery_horizon): no queued or sending delivery was created
// before it. The claim's lanes and the wake-up question take it as a
// parameter, `created_at >= $n`, so PostgreSQL leaves the weekly partitions
// before it out at executor start-up, before their indexes are opened (a
// scalar subquery would prune only at run time, after every partition's
// scan was set up). Each of those statements also reads the row: a
// statement that finds it lower than the value it was bound by (an
// operator requeued an older delivery) may have missed rows, and is asked
// again with the lower one.
//
// Starts at -infinity, which leaves nothing out, until a statement has read
// the row. Thread-safe: a worker's loops share one.
class ActiveHorizon {
 public:
  // Microseconds since the Unix epoch; kMinusInfinity is before every time.
  using Micros = std::int64_t;
  static constexpr Micros kMinusInfinity = std::numeric_limits<Micros>::min();

  Micros Current() const { return micros_.load(std::memory_order_relaxed); }

  // `micros` as a timestamptz parameter: "-infinity" or RFC 3339.
  static std::string Sql(Micros micros);
  // PostgreSQL's text of a timestamptz ("-infinity" or "2026-12-07
  // 04:00:00+00"). Throws std::runtime_error for any other text.
  static Micros Parse(std::string_view text);

  // Keeps `seen`, what a statement bound by `used` read of the row (the
  // newest read wins: the row moves rarely, and a stale value is corrected
  // by the next statement's read). True when `seen` is lower than `used`:
  // ask again with it.
  bool Learn(Micros used, std::string_view seen);

 private:
  std::atomic<Micros> micros_{kMinusInfinity};
};

}  // namespace chopar::delivery
