#include "hub/user_erasure.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>

#include "db/notify_channels.hpp"
#include "db/params.hpp"
#include "db/time_column.hpp"
#include "hub/queries.hpp"

namespace chopar::hub {
namespace {

// The kinds of rows an erasure deletes, in the order it deletes them: what
// would make new work first, deliveries before the sink messages a claim
// may still write, the rows that find the user's addresses before the
// addresses, the tenant memberships (which a confined key's view of a
// pending erasure follows) last. Each statement takes (user id, batch).
struct ErasureKind {
  const char* name;  // the metrics' `kind`
  const db::Query& query;
};
const ErasureKind kErasureKinds[] = {
    {"delayed_notifications", queries::kEraseDelayed},
    {"workflow_runs", queries::kEraseWorkflowRuns},
    {"schedules", queries::kEraseSchedules},
    {"telegram_link_tokens", queries::kEraseTelegramLinkTokens},
    {"digest_items", queries::kEraseDigestItems},
    {"deliveries", queries::kEraseDeliveries},
    {"digests", queries::kEraseDigests},
    {"sink_messages", queries::kEraseSinkMessages},
    {"notification_actions", queries::kEraseNotificationActions},
    {"notifications", queries::kEraseNotifications},
    {"notification_dedup", queries::kEraseDedupKeys},
    {"suppressions", queries::kEraseSuppressions},
    {"audit_log", queries::kEraseAuditValues},
    {"outbox", queries::kEraseOutbox},
    {"outbox_audit", queries::kEraseOutboxAudit},
    {"push_subscriptions", queries::kErasePushSubscriptions},
    {"devices", queries::kEraseDevices},
    {"telegram_connections", queries::kEraseTelegramConnection},
    {"user_addresses", queries::kEraseAddresses},
    {"topic_subscribers", queries::kEraseTopicMemberships},
    {"user_tenants", queries::kEraseTenantMemberships},
};

std::vector<Erasure> ReadErasures(const db::Result& rows) {
  std::vector<Erasure> erasures;
  erasures.reserve(static_cast<std::size_t>(rows.Rows()));
  for (int i = 0; i < rows.Rows(); ++i) {
    erasures.push_back({rows.Int(i, "user_id"), db::TimeColumn(rows, i, "requested_at"),
                        db::OptTimeColumn(rows, i, "completed_at")});
  }
  return erasures;
}

std::string IdsParam(std::span<const std::int64_t> ids) {
  return db::ArrayLiteral(std::vector<std::int64_t>(ids.begin(), ids.end()));
}

db::BackgroundLoopSettings LoopSettings(const db::Pool& pool) {
  db::BackgroundLoopSettings loop;
  loop.name = "erasure";
  loop.threads = 1;
  loop.listen = db::ListenOn{pool.listen_conninfo(), db::kErasuresChannel};
  return loop;
}

}  // namespace

std::vector<Erasure> UserErasures::Request(std::span<const std::int64_t> ids,
                                           const std::optional<std::string>& confined) const {
  const std::string id_param = IdsParam(ids);
  auto tx = pool_.Begin("request_erasures");
  tx.Exec(queries::kRequestErasures, id_param, confined);
  auto rows = tx.Exec(queries::kErasuresOf, id_param, confined);
  tx.Commit();
  return ReadErasures(rows);
}

std::vector<Erasure> UserErasures::Find(std::span<const std::int64_t> ids,
                                        const std::optional<std::string>& confined) const {
  return ReadErasures(pool_.Acquire()->Exec(queries::kErasuresOf, IdsParam(ids), confined));
}

UserEraser::UserEraser(db::Pool& pool, core::MetricsRegistry& metrics, UserEraserSettings settings)
    : pool_(pool),
      settings_{std::clamp(settings.batch, 1, kMaxUserErasureBatch), settings.max_sleep},
      completed_(metrics.GetCounter("chopar_user_erasures_completed_total",
                                    "User erasures carried out to the end")),
      loop_(
          LoopSettings(pool), [this](const db::StepContext&) { return LoopStep(); }, metrics) {
  for (const ErasureKind& kind : kErasureKinds) {
    rows_.push_back(&metrics.GetCounter("chopar_user_erasure_rows_total",
                                        "Rows an erasure deleted (or, in the audit log, erased "
                                        "the values of), by kind",
                                        {{"kind", kind.name}}));
  }
}

UserEraser::~UserEraser() { loop_.StopAndJoin(); }

UserEraser::Step UserEraser::StepOnce() {
  auto tx = pool_.Begin("erase_user");
  const auto claimed = tx.Exec(queries::kClaimErasure);
  if (claimed.Empty()) {
    tx.Commit();
    return {};
  }
  Step step;
  step.user_id = claimed.Int(0, "user_id");
  for (std::size_t i = 0; i < std::size(kErasureKinds); ++i) {
    const std::int64_t rows =
        tx.Exec(kErasureKinds[i].query, *step.user_id, settings_.batch).AffectedRows();
    if (rows > 0) {
      tx.Commit();
      rows_[i]->Inc(static_cast<double>(rows));
      step.kind = kErasureKinds[i].name;
      step.rows = rows;
      return step;
    }
  }
  // Nothing of the user is left but the row itself, in this same
  // transaction: delete it and complete the erasure.
  tx.Exec(queries::kFinishErasure, *step.user_id);
  tx.Commit();
  completed_.Inc();
  step.completed = true;
  spdlog::info("erasure of user {} completed", *step.user_id);
  return step;
}

int UserEraser::RunOnce() {
  int completed = 0;
  while (!loop_.Stopping()) {
    const Step step = StepOnce();
    if (!step.user_id) break;
    if (step.completed) ++completed;
  }
  return completed;
}

db::Next UserEraser::LoopStep() {
  if (StepOnce().user_id) return db::Next::Again();
  return db::Next::SleepUpTo(settings_.max_sleep);
}

}  // namespace chopar::hub
