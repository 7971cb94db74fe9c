#include "workflow/engine/cancel.hpp"

#include "core/request_error.hpp"
#include "hub/validation.hpp"
#include "workflow/engine/queries.hpp"

namespace chopar::workflow::engine {

CancelRequest ParseCancelRequest(const nlohmann::json& body) {
  hub::RequireObject(body);
  CancelRequest request;
  request.cancellation_key = hub::RequireString(body, "cancellation_key", 1, 255);
  if (const auto it = body.find("user_id"); it != body.end() && !it->is_null()) {
    request.user_id = hub::RequireId(body, "user_id");
  }
  return request;
}

Canceler::Canceler(db::Pool& pool, core::MetricsRegistry& metrics) : pool_(pool) {
  // The delivery worker's counter of final statuses, this status's series.
  for (core::ChannelKind kind : core::AllChannels()) {
    canceled_[kind] = &metrics.GetCounter(
        "chopar_deliveries_total", "Deliveries that reached a final status.",
        {{"channel", std::string(core::ChannelName(kind))}, {"status", "canceled"}});
  }
}

int Canceler::Cancel(const CancelRequest& request) {
  auto tx = pool_.Begin("cancel_notifications");
  // Two statements, in this order (see the header): READ COMMITTED gives
  // the second a snapshot taken after the first's row locks were granted.
  const auto delayed = tx.Exec(queries::kCancelDelayed, request.cancellation_key, request.user_id);
  // Workflow runs stop before their queued deliveries are canceled: a run
  // an advancer holds is waited for, and the delivery it just created is
  // then seen by the statement after this one.
  const auto runs =
      tx.Exec(queries::kCancelWorkflowRuns, request.cancellation_key, request.user_id);
  // Digest windows lose the items (not counted: their deliveries do not
  // exist yet, and a window left empty sends nothing).
  tx.Defer(queries::kCancelDigestItems, request.cancellation_key, request.user_id);
  const auto deliveries =
      tx.Exec(queries::kCancelDeliveries, request.cancellation_key, request.user_id);
  tx.Commit();
  for (int i = 0; i < deliveries.Rows(); ++i) {
    if (const auto kind = core::ParseChannel(deliveries.Text(i, "channel")))
      canceled_[*kind]->Inc();
  }
  return delayed.Rows() + runs.Rows() + deliveries.Rows();
}

}  // namespace chopar::workflow::engine
