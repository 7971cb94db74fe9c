#pragma once

#include <chrono>

namespace chopar::retention {

// The [retention] section (docs/configuration.md): how long history is kept,
// and how the partition maintenance runs. A value, set once.
struct RetentionSettings {
  // Days a notification (and its dedup key) is kept; 0 keeps them forever.
  // Whole weekly partitions go, like deliveries'. More than deliveries_days
  // + 7 (app::LoadConfig refuses less), so deliveries go first.
  int notifications_days = 0;
  // Days deliveries and sink messages are kept; 0 keeps them forever. Whole
  // weekly partitions go once every row in them is older than this, so a
  // row lives between deliveries_days and deliveries_days + 7 days.
  int deliveries_days = 0;
  // Days an audit log row is kept; 0 keeps them forever. Deleted in
  // batches of dedup_batch, oldest first.
  int audit_days = 0;
  // How often a worker process creates partitions ahead and drops old ones.
  std::chrono::seconds interval{std::chrono::hours(1)};
  // How many weeks of partitions exist ahead of now after each pass.
  int weeks_ahead = 4;
  // How many dedup keys one transaction of retention deletes.
  int dedup_batch = 10000;
};

}  // namespace chopar::retention
