#pragma once

#include "core/metrics.hpp"
#include "hub/notify_service.hpp"

namespace chopar::schedule {

// The Scheduler's metrics, resolved once in the registry it is given:
//   chopar_schedule_lag_seconds       due instant → firing committed
//   chopar_schedules_due              enabled schedules whose next_fire_at has passed
//   chopar_schedule_firings_waiting   firing transactions written ahead, waiting for their instant
//   chopar_schedule_fired_total       occurrences fired (notifications created)
//   chopar_schedule_skipped_total     occurrences skipped by their catch-up policy
// plus chopar_notifications_created_total for the notifications it commits.
// Thread-safe; the registry must outlive it.
struct SchedulerMetrics {
  explicit SchedulerMetrics(core::MetricsRegistry& registry);

  core::Histogram& lag;
  core::Gauge& due;
  core::Gauge& waiting;
  core::Counter& fired;
  core::Counter& skipped;
  hub::NotifyMetrics notifications;
};

}  // namespace chopar::schedule
