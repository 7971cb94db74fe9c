#include "workflow/engine/snooze_returner.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "db/statement_time.hpp"
#include "hub/inbox_state_wake.hpp"
#include "hub/queries.hpp"
#include "workflow/engine/queries.hpp"

namespace chopar::workflow::engine {

SnoozeReturner::SnoozeReturner(db::Pool& pool, const core::Clock& clock,
                               core::MetricsRegistry& metrics, SnoozeReturnerSettings settings)
    : pool_(pool),
      clock_(clock),
      settings_(settings),
      returned_(metrics.GetCounter("chopar_snoozed_returned_total",
                                   "Snoozed notifications brought back when their snooze ended")),
      loop_(pool, "snooze", db::kSnoozesChannel, clock, settings_.max_sleep,
            {[this](bool& full) { return ReturnBatch(full); }, [this] { return NextDue(); }},
            metrics) {}

SnoozeReturner::~SnoozeReturner() { Stop(); }

int SnoozeReturner::ReturnBatch(bool& full) {
  auto tx = pool_.Begin("return_snoozed");
  const auto rows = tx.Exec(queries::kReturnSnoozed, db::SqlNowParam(clock_), settings_.batch);
  full = rows.Rows() >= settings_.batch;
  std::map<std::int64_t, std::vector<std::int64_t>> ids_by_user;
  for (int i = 0; i < rows.Rows(); ++i) {
    ids_by_user[rows.Int(i, "user_id")].push_back(rows.Int(i, "id"));
  }
  // Each user's streams hear which items came back, in the same commit.
  std::vector<std::string> wakes;
  for (auto& [user_id, ids] : ids_by_user) {
    hub::InboxStateChange state;
    state.change = hub::InboxChange::kUnsnoozed;
    state.at = rows.String(0, "at");
    std::sort(ids.begin(), ids.end());
    state.ids = std::move(ids);
    for (auto& payload : hub::InboxStateWakes(user_id, state)) wakes.push_back(std::move(payload));
  }
  if (!wakes.empty()) tx.Exec(hub::queries::kWakeInbox, db::ArrayLiteral(wakes));
  tx.Commit();
  returned_.Inc(static_cast<double>(rows.Rows()));
  return rows.Rows();
}

std::optional<core::TimePoint> SnoozeReturner::NextDue() {
  auto conn = pool_.Acquire();
  const auto row = conn->Exec(queries::kNextSnoozed);
  if (row.IsNull(0, "snoozed_until")) return std::nullopt;
  return core::ParsePgTimestamp(row.Text(0, "snoozed_until"));
}

}  // namespace chopar::workflow::engine
