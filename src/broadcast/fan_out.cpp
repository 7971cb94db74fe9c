#include "broadcast/fan_out.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <variant>
#include <vector>

#include "broadcast/broadcast_service.hpp"
#include "broadcast/queries.hpp"
#include "core/backoff.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"

namespace chopar::broadcast {
namespace {

using std::chrono::milliseconds;

// A claimable broadcast held by another batch right now is looked at again
// after this (its lease is set when that batch commits).
constexpr milliseconds kBusyRetry{200};

db::BackgroundLoopSettings LoopSettings(const db::Pool& pool) {
  db::BackgroundLoopSettings loop;
  loop.name = "broadcast";
  loop.listen = db::ListenOn{pool.listen_conninfo(), db::kBroadcastsChannel};
  return loop;
}

std::string OwnerName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + ":" + std::to_string(getpid()) + ":" +
         std::to_string(core::ThreadLocalRandom::Instance().Uniform(UINT32_MAX));
}

}  // namespace

FanOut::FanOut(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
               FanOutSettings settings, const templates::TemplateLookup* templates)
    : pool_(pool),
      clock_(clock),
      settings_(settings),
      templates_(templates),
      owner_(OwnerName()),
      notify_metrics_(metrics),
      recipients_(metrics.GetCounter("chopar_broadcast_recipients_total",
                                     "Recipients walked by broadcast fan-out batches")),
      loop_(
          LoopSettings(pool), [this](const db::StepContext&) { return Step(); }, metrics) {}

FanOut::~FanOut() { Stop(); }

std::optional<FanOutBatch> FanOut::RunBatch() {
  auto tx = pool_.Begin("broadcast_batch");
  const auto claim = tx.Exec(queries::kClaimBroadcast, owner_);
  if (claim.Empty()) return std::nullopt;
  FanOutBatch batch;
  batch.broadcast_id = claim.Int(0, "id");
  const auto topic = claim.OptString(0, "topic");
  const auto cursor = claim.OptInt(0, "cursor");
  const auto recipients = topic
                              ? tx.Exec(queries::kTopicRecipients, *topic, cursor, settings_.batch)
                              : tx.Exec(queries::kAllRecipients, cursor, settings_.batch);

  const hub::NotificationRequest each = ParseBroadcastNotification(
      nlohmann::json::parse(claim.Text(0, "notification")), batch.broadcast_id);
  std::vector<hub::NotificationRequest> requests(static_cast<std::size_t>(recipients.Rows()), each);
  for (int i = 0; i < recipients.Rows(); ++i)
    requests[static_cast<std::size_t>(i)].user_id = recipients.Int(i, 0);

  // The database's clock decides when this batch's deliveries are due (never
  // before now); the next batch's come after this one's at the set pace.
  const core::TimePoint due = core::ParsePgTimestamp(claim.Text(0, "deliveries_due_at"));
  const std::vector<hub::BatchItemResult> results = hub::NotifyService::NotifyIn(
      tx, requests, clock_.Now(), templates_,
      settings_.deliveries_per_second > 0 ? std::optional(due) : std::nullopt);
  std::size_t deliveries = 0;
  for (const auto& result : results) {
    if (const auto* done = std::get_if<hub::NotifyResult>(&result); done && done->created) {
      ++batch.created;
      deliveries += done->channels.size();
    }
  }
  const auto spread =
      settings_.deliveries_per_second > 0
          ? std::chrono::duration_cast<core::TimePoint::duration>(std::chrono::duration<double>(
                static_cast<double>(deliveries) / settings_.deliveries_per_second))
          : core::TimePoint::duration::zero();

  batch.recipients = recipients.Rows();
  batch.finished = batch.recipients < settings_.batch;
  const std::optional<std::int64_t> last =
      batch.recipients > 0 ? std::optional(recipients.Int(batch.recipients - 1, 0)) : std::nullopt;
  tx.Exec(queries::kFinishBatch, batch.broadcast_id, last, batch.recipients, batch.created,
          batch.finished, std::chrono::duration<double>(settings_.lease).count(), owner_,
          core::FormatRfc3339Micros(due + spread));
  tx.Commit();
  notify_metrics_.CountCommitted(results);
  recipients_.Inc(batch.recipients);
  return batch;
}

int FanOut::RunOnce() {
  int batches = 0;
  while (!loop_.Stopping() && RunBatch()) ++batches;
  return batches;
}

void FanOut::Start() { loop_.Start(); }

void FanOut::Stop() { loop_.StopAndJoin(); }

db::Next FanOut::Step() {
  if (RunBatch()) return db::Next::Again();
  return db::Next::SleepUpTo(IdleWait());
}

milliseconds FanOut::IdleWait() {
  const auto row = pool_.Acquire()->Exec(queries::kNextBroadcastDue);
  if (row.IsNull(0, 0)) return settings_.max_sleep;
  const double seconds = std::stod(row.String(0, 0));
  const auto wait = milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000)));
  return std::clamp(wait, kBusyRetry, settings_.max_sleep);
}

}  // namespace chopar::broadcast
