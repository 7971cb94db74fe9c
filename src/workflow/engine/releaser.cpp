#include "workflow/engine/releaser.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "db/statement_time.hpp"
#include "hub/stored_request.hpp"
#include "workflow/engine/queries.hpp"

namespace chopar::workflow::engine {

Releaser::Releaser(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                   const templates::TemplateLookup* templates, ReleaserSettings settings)
    : pool_(pool),
      clock_(clock),
      templates_(templates),
      settings_(settings),
      notify_metrics_(metrics),
      invalid_(metrics.GetCounter("chopar_delayed_notifications_invalid_total",
                                  "Delayed notifications that no longer made a notification when "
                                  "due: kept as failed, never released")),
      loop_(pool, "delayed", db::kDelayedChannel, clock, settings_.max_sleep,
            {[this](bool& full) { return ReleaseBatch(full); }, [this] { return NextDue(); }},
            metrics) {}

Releaser::~Releaser() { Stop(); }

namespace {

// A reason as stored and logged: printable ASCII only, so that no byte of
// a message can make the statement that keeps it fail.
std::string Printable(std::string_view reason) {
  std::string out;
  out.reserve(reason.size());
  for (const char c : reason) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace

int Releaser::ReleaseBatch(bool& full) {
  auto tx = pool_.Begin("release_delayed");
  const auto rows = tx.Exec(queries::kClaimDelayed, db::SqlNowParam(clock_), settings_.batch);
  full = rows.Rows() >= settings_.batch;
  if (rows.Empty()) {
    tx.Commit();
    return 0;
  }
  const core::TimePoint now = core::ParsePgTimestamp(rows.Text(0, "now"));
  std::vector<std::int64_t> request_rows;  // the delayed row of each request
  std::vector<hub::NotificationRequest> requests;
  std::vector<std::int64_t> released;
  std::vector<std::int64_t> failed;
  std::vector<std::string> reasons;
  for (int i = 0; i < rows.Rows(); ++i) {
    const std::int64_t id = rows.Int(i, "id");
    try {
      hub::NotificationRequest request =
          hub::DecodeStoredRequest(static_cast<int>(rows.Int(i, "request_version")),
                                   nlohmann::json::parse(rows.Text(i, "request")));
      request.id = rows.Int(i, "notification_id");
      requests.push_back(std::move(request));
      request_rows.push_back(id);
    } catch (const std::exception& e) {
      // Decoded by its version's own reader, not the API's rules: only a
      // row edited by hand, or written by a newer chopar, gets here.
      failed.push_back(id);
      reasons.push_back(Printable(e.what()));
    }
  }
  const auto results =
      hub::NotifyService::NotifyIn(tx, requests, now, templates_, std::nullopt, db::SqlNow(clock_));
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (const auto* error = std::get_if<core::RequestError>(&results[i])) {
      failed.push_back(request_rows[i]);
      reasons.push_back(Printable(error->what()));
    } else {
      released.push_back(request_rows[i]);
    }
  }
  tx.Exec(queries::kDeleteDelayed, db::ArrayLiteral(released));
  if (!failed.empty()) {
    tx.Exec(queries::kFailDelayed, db::ArrayLiteral(failed), db::ArrayLiteral(reasons),
            db::SqlNowParam(clock_));
  }
  tx.Commit();
  notify_metrics_.CountCommitted(results);
  invalid_.Inc(static_cast<double>(failed.size()));
  for (std::size_t i = 0; i < failed.size(); ++i) {
    spdlog::error(
        "delayed notification {} no longer makes a notification and is kept as failed "
        "(chopar.delayed_notifications.last_error): {}",
        failed[i], reasons[i]);
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
