#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "retention/settings.hpp"

namespace chopar::retention {

// The tables partitioned by week of created_at (migrations 0017, 0020), each
// with the [retention] setting that keeps it, in the order a pass maintains
// them: deliveries before the notifications they name.
struct HistoryTable {
  const char* name;              // "chopar.deliveries"
  int RetentionSettings::*days;  // which setting keeps it
};
inline constexpr HistoryTable kHistoryTables[] = {
    {"chopar.deliveries", &RetentionSettings::deliveries_days},
    {"chopar.sink_messages", &RetentionSettings::deliveries_days},
    {"chopar.notifications", &RetentionSettings::notifications_days},
};

// What one pass did.
struct MaintenanceReport {
  int created = 0;                   // partitions created ahead
  std::vector<std::string> dropped;  // partitions dropped, oldest first
  long digest_items_deleted = 0;     // items of closed digests, before their notifications
  long dedup_keys_deleted = 0;       // keys of the notifications dropped
  long action_presses_deleted = 0;   // recorded presses of the notifications dropped
  long workflow_runs_deleted = 0;    // workflow runs of the notifications dropped
  long audit_rows_deleted = 0;       // audit log rows older than audit_days
  // The horizon of active deliveries after the pass: PostgreSQL's text of
  // chopar.delivery_horizon.active_from ("-infinity" until a week was passed).
  std::string delivery_horizon;
};

// How far behind now the horizon of active deliveries always stays: a
// delivery's created_at is stamped by the clock of the host that inserted
// it, which may be behind the database's.
inline constexpr std::chrono::days kDeliveryHorizonMargin{14};

// Keeps the partitioned history tables ready and within their retention
// (docs/operations.md, "Partitioned history"): each pass, per table, in one
// short transaction under an advisory lock that serialises chopar processes,
// creates the weekly partitions missing until settings.weeks_ahead weeks
// after now, then, when the table's retention is not 0, drops the
// partitions whose every row is older than its days — whole partitions,
// never a DELETE. With notifications_days, the transaction that drops
// notifications first deletes the items of the closed digests that name
// them, and the pass then forgets their dedup keys (notification_dedup) in
// batches of settings.dedup_batch, one short transaction each. Last, it
// moves the horizon of active deliveries (migration 0037) past the weeks
// ended more than kDeliveryHorizonMargin ago that hold no queued or sending
// delivery, so the claim's lookups leave them out. With audit_days, it
// deletes the audit log's rows older than that, oldest first, in batches of
// settings.dedup_batch (a DELETE: the log is a plain table). Creating or dropping a partition
// takes the table's ACCESS EXCLUSIVE lock for a moment: the transaction waits at most 2 s for it
// (lock_timeout), so it never queues live traffic behind it for longer; a
// pass that could not get it fails and is tried again after the loop's
// backoff.
//
// "Now" is the database's clock, or the clock's own time when it is not real
// (tests move a core::SimulatedClock to age partitions).
//
// A db::BackgroundLoop named "history" runs a pass every settings.interval
// once Start() is called (workers run it: app::RunService). Metrics:
//   chopar_history_partitions{table}          partitions after the last pass
//   chopar_history_partitions_dropped_total{table}
//   chopar_history_maintenance_last_success_timestamp_seconds
//   chopar_history_maintenance_last_error_timestamp_seconds
//   chopar_delivery_horizon_timestamp_seconds  the horizon after the last pass
//   and the loop's chopar_loop_*{loop="history"}.
//
// The pool, clock and registry must outlive this. Thread-safe.
class HistoryMaintenance {
 public:
  HistoryMaintenance(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                     RetentionSettings settings);
  ~HistoryMaintenance();
  HistoryMaintenance(const HistoryMaintenance&) = delete;
  HistoryMaintenance& operator=(const HistoryMaintenance&) = delete;

  void Start() { loop_.Start(); }
  // Lets a pass in progress finish (it is a few short statements).
  void Stop() { loop_.StopAndJoin(); }

  // One pass over every table, now. Throws db::DbError (e.g.
  // db::LockNotAvailable when a table's lock was not granted within the
  // lock timeout; the tables before it are done) and counts the failure in
  // the metrics.
  MaintenanceReport RunOnce();

 private:
  MaintenanceReport Pass();
  // Deletes the dedup keys of dropped notifications, batch by batch.
  // Runs `query`, which deletes at most its $1 (dedup_batch) rows, in
  // short transactions named `name` until a batch comes back short;
  // returns how many rows it deleted.
  long DeleteInBatches(std::string_view name, const db::Query& query, const db::Params& params);
  long ForgetDroppedDedupKeys();
  // Deletes the recorded action presses of notifications retention
  // dropped, in batches of dedup_batch; returns how many.
  long ForgetDroppedActionPresses();
  // Deletes the workflow runs of notifications retention dropped, the same
  // way; returns how many.
  long ForgetDroppedWorkflowRuns();
  // Deletes the audit rows older than audit_days, batch by batch.
  long ForgetOldAuditRows();
  // Moves the horizon of active deliveries; returns it.
  std::string AdvanceDeliveryHorizon();
  db::Next Step();

  struct TableMetrics {
    core::Gauge& partitions;
    core::Counter& dropped;
  };

  db::Pool& pool_;
  const core::Clock& clock_;
  const RetentionSettings settings_;
  std::vector<TableMetrics> table_metrics_;  // as kHistoryTables
  core::Gauge& last_success_;
  core::Gauge& last_error_;
  core::Gauge& delivery_horizon_;
  db::BackgroundLoop loop_;
};

}  // namespace chopar::retention
