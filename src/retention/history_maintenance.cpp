#include "retention/history_maintenance.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <optional>
#include <string_view>

#include "core/time_format.hpp"
#include "db/statement_time.hpp"
#include "retention/queries.hpp"

namespace chopar::retention {
namespace {

// Longer than any catalog change takes, short enough that live statements
// queued behind a waiting DDL statement are not held up noticeably.
constexpr const char* kLockTimeout = "SET LOCAL lock_timeout = '2s'";

db::BackgroundLoopSettings LoopSettings() {
  db::BackgroundLoopSettings loop;
  loop.name = "history";
  // A pass that failed (a lock not granted) is tried again soon, not only
  // an interval later; the loop's backoff grows to a minute.
  loop.error_backoff = {std::chrono::seconds(5), std::chrono::minutes(1)};
  return loop;
}

double UnixSeconds(core::TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace

HistoryMaintenance::HistoryMaintenance(db::Pool& pool, const core::Clock& clock,
                                       core::MetricsRegistry& metrics, RetentionSettings settings)
    : pool_(pool),
      clock_(clock),
      settings_(settings),
      last_success_(metrics.GetGauge(
          "chopar_history_maintenance_last_success_timestamp_seconds",
          "When the partition maintenance of the history tables last completed (Unix time)")),
      last_error_(metrics.GetGauge(
          "chopar_history_maintenance_last_error_timestamp_seconds",
          "When the partition maintenance of the history tables last failed (Unix time)")),
      delivery_horizon_(metrics.GetGauge(
          "chopar_delivery_horizon_timestamp_seconds",
          "No queued or sending delivery was created before this (Unix time; 0 while no week "
          "of history is left out of the claim)")),
      loop_(
          LoopSettings(), [this](const db::StepContext&) { return Step(); }, metrics) {
  for (const HistoryTable& table : kHistoryTables) {
    const core::Labels labels = {{"table", table.name}};
    table_metrics_.push_back(
        {metrics.GetGauge("chopar_history_partitions",
                          "Partitions of a history table after the last maintenance", labels),
         metrics.GetCounter("chopar_history_partitions_dropped_total",
                            "Partitions of a history table dropped by retention", labels)});
  }
}

HistoryMaintenance::~HistoryMaintenance() { loop_.StopAndJoin(); }

MaintenanceReport HistoryMaintenance::RunOnce() {
  try {
    MaintenanceReport report = Pass();
    last_success_.Set(UnixSeconds(clock_.Now()));
    return report;
  } catch (const std::exception&) {
    last_error_.Set(UnixSeconds(clock_.Now()));
    throw;
  }
}

MaintenanceReport HistoryMaintenance::Pass() {
  const std::optional<std::string> now = db::SqlNowParam(clock_);
  MaintenanceReport report;
  for (std::size_t i = 0; i < std::size(kHistoryTables); ++i) {
    const HistoryTable& table = kHistoryTables[i];
    const int days = settings_.*table.days;
    // One table per transaction: its lock is held only for its own changes.
    auto tx = pool_.Begin("history_maintenance");
    tx.ExecText(kLockTimeout);
    tx.Exec(queries::kLockHistoryMaintenance);
    report.created += static_cast<int>(
        tx.Exec(queries::kCreateHistoryPartitions, table.name, now, settings_.weeks_ahead)
            .Int(0, "created"));
    std::vector<std::string> dropped;
    const bool notifications = std::string_view(table.name) == "chopar.notifications";
    if (days > 0 && notifications) {
      report.digest_items_deleted += tx.Exec(queries::kDeleteDroppedDigestItems, now, days).Rows();
    }
    if (days > 0) {
      const db::Result rows = tx.Exec(queries::kDropHistoryPartitions, table.name, now, days);
      for (int row = 0; row < rows.Rows(); ++row) dropped.push_back(rows.String(row, "dropped"));
    }
    const auto partitions =
        tx.Exec(queries::kCountHistoryPartitions, table.name).Int(0, "partitions");
    tx.Commit();
    table_metrics_[i].partitions.Set(static_cast<double>(partitions));
    table_metrics_[i].dropped.Inc(static_cast<double>(dropped.size()));
    for (const std::string& name : dropped) {
      spdlog::info("history: dropped partition {} (rows older than {} days)", name, days);
      report.dropped.push_back(name);
    }
  }
  if (settings_.notifications_days > 0) {
    report.dedup_keys_deleted = ForgetDroppedDedupKeys();
    report.action_presses_deleted = ForgetDroppedActionPresses();
    report.workflow_runs_deleted = ForgetDroppedWorkflowRuns();
  }
  if (settings_.audit_days > 0) report.audit_rows_deleted = ForgetOldAuditRows();
  report.delivery_horizon = AdvanceDeliveryHorizon();
  if (report.created > 0) spdlog::info("history: created {} partitions ahead", report.created);
  if (report.audit_rows_deleted > 0) {
    spdlog::info("history: deleted {} audit log rows older than {} days", report.audit_rows_deleted,
                 settings_.audit_days);
  }
  if (report.digest_items_deleted > 0 || report.dedup_keys_deleted > 0 ||
      report.action_presses_deleted > 0 || report.workflow_runs_deleted > 0) {
    spdlog::info(
        "history: deleted {} digest items, {} dedup keys, {} action presses and {} workflow runs "
        "of dropped notifications",
        report.digest_items_deleted, report.dedup_keys_deleted, report.action_presses_deleted,
        report.workflow_runs_deleted);
  }
  return report;
}

long HistoryMaintenance::DeleteInBatches(std::string_view name, const db::Query& query,
                                         const db::Params& params) {
  long deleted = 0;
  for (;;) {
    // Each batch is its own short transaction.
    auto tx = pool_.Begin(name);
    const int rows = tx.ExecAndCommit(query, params).Rows();
    deleted += rows;
    if (rows < settings_.dedup_batch) return deleted;
  }
}

long HistoryMaintenance::ForgetDroppedDedupKeys() {
  return DeleteInBatches("history_dedup_retention", queries::kDeleteExpiredDedupKeys,
                         db::Params(settings_.dedup_batch));
}

long HistoryMaintenance::ForgetDroppedActionPresses() {
  return DeleteInBatches("history_action_retention", queries::kDeleteDroppedActionPresses,
                         db::Params(settings_.dedup_batch));
}

long HistoryMaintenance::ForgetDroppedWorkflowRuns() {
  return DeleteInBatches("history_workflow_retention", queries::kDeleteDroppedWorkflowRuns,
                         db::Params(settings_.dedup_batch));
}

long HistoryMaintenance::ForgetOldAuditRows() {
  return DeleteInBatches(
      "audit_retention", queries::kDeleteOldAuditRows,
      db::Params(settings_.dedup_batch, settings_.audit_days, db::SqlNowParam(clock_)));
}

std::string HistoryMaintenance::AdvanceDeliveryHorizon() {
  const auto margin = std::chrono::duration_cast<std::chrono::seconds>(kDeliveryHorizonMargin);
  auto tx = pool_.Begin("delivery_horizon");
  std::string horizon =
      tx.ExecAndCommit(queries::kAdvanceDeliveryHorizon,
                       db::Params(db::SqlNowParam(clock_), std::to_string(margin.count()) + " s"))
          .String(0, "active_from");
  delivery_horizon_.Set(horizon == "-infinity" ? 0.0
                                               : UnixSeconds(core::ParsePgTimestamp(horizon)));
  return horizon;
}

db::Next HistoryMaintenance::Step() {
  (void)RunOnce();
  return db::Next::SleepUpTo(settings_.interval);
}

}  // namespace chopar::retention
