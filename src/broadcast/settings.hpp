#pragma once

#include <chrono>

namespace chopar::broadcast {

// How a FanOut behaves; a value, set once at construction. The defaults are
// the defaults of the [broadcast] section of the configuration
// (docs/configuration.md), which app::Config holds as this very type.
struct FanOutSettings {
  // [broadcast] batch: recipients per fan-out transaction. Small enough that
  // a batch is a short transaction (its row locks, its NOTIFY) and a crash
  // repeats little; large enough that round trips do not dominate.
  int batch = 2000;
  // [broadcast] lease_seconds: how long a process keeps a broadcast between
  // its batches; after a crash another process continues when it runs out.
  std::chrono::milliseconds lease{std::chrono::seconds(30)};
  // [broadcast] deliveries_per_second: the pace at which a broadcast's
  // deliveries fall due. The fan-out inserts at the database's speed, but the
  // deliveries of each batch are due a little after the previous batch's, so
  // the delivery worker's queue (ordered by due time) holds about one
  // batch of a broadcast ahead of a notification created meanwhile, not
  // everything fanned out so far. 0: due at once (no spreading).
  double deliveries_per_second = 5000;
  // [broadcast] max_sleep_seconds: idle wake-up when no NOTIFY arrives.
  std::chrono::milliseconds max_sleep{std::chrono::seconds(10)};
};

}  // namespace chopar::broadcast
