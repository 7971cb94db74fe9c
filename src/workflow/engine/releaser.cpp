#include "workflow/engine/releaser.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "workflow/engine/queries.hpp"

namespace chopar::workflow::engine {

Releaser::Releaser(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                   const templates::TemplateLookup* templates, ReleaserSettings settings)
    : pool_(pool),
      clock_(clock),
      templates_(templates),
      settings_(settings),
      notify_metrics_(metrics),
      loop_(pool, "delayed", db::kDelayedChannel, clock, settings_.max_sleep,
            {[this](bool& full) { return ReleaseBatch(full); }, [this] { return NextDue(); }},
            metrics) {}

Releaser::~Releaser() { Stop(); }

int Releaser::ReleaseBatch(bool& full) {
  auto tx = pool_.Begin("release_delayed");
  const auto rows = tx.Exec(queries::kClaimDelayed, SqlNow(clock_), settings_.batch);
  full = rows.Rows() >= settings_.batch;
  if (rows.Empty()) {
    tx.Commit();
    return 0;
  }
  const core::TimePoint now = core::ParsePgTimestamp(rows.Text(0, "now"));
  std::vector<std::int64_t> ids;
  std::vector<hub::NotificationRequest> requests;
  for (int i = 0; i < rows.Rows(); ++i) {
    ids.push_back(rows.Int(i, "id"));
    try {
      hub::NotificationRequest request =
          hub::ParseNotificationRequest(nlohmann::json::parse(rows.Text(i, "request")));
      request.id = rows.Int(i, "notification_id");
      requests.push_back(std::move(request));
    } catch (const std::exception& e) {
      // Stored by this code from a parsed request: cannot happen unless
      // the row was edited by hand. Dropped rather than retried forever.
      spdlog::warn("delayed notification {} dropped: {}", ids.back(), e.what());
    }
  }
  const auto results =
      hub::NotifyService::NotifyIn(tx, requests, now, templates_, std::nullopt,
                                   clock_.IsReal() ? std::nullopt : std::optional(now));
  tx.Exec(queries::kDeleteDelayed, db::ArrayLiteral(ids));
  tx.Commit();
  notify_metrics_.CountCommitted(results);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (const auto* error = std::get_if<core::RequestError>(&results[i])) {
      spdlog::warn("delayed notification {} for user {} dropped: {}", *requests[i].id,
                   requests[i].user_id, error->what());
    }
  }
  return rows.Rows();
}

std::optional<core::TimePoint> Releaser::NextDue() {
  auto conn = pool_.Acquire();
  const auto row = conn->Exec(queries::kNextDelayed);
  if (row.IsNull(0, "due_at")) return std::nullopt;
  return core::ParsePgTimestamp(row.Text(0, "due_at"));
}

}  // namespace chopar::workflow::engine
