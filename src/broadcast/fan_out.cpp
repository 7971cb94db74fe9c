#include "broadcast/fan_out.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <variant>
#include <vector>

#include "broadcast/broadcast_service.hpp"
#include "broadcast/queries.hpp"
#include "broadcast/stop_walk.hpp"
#include "core/backoff.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "db/params.hpp"
#include "hub/notification_content.hpp"

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

// The channels on for a user whose preferences do not say.
std::vector<std::string> OnByDefault() {
  std::vector<std::string> names;
  for (core::ChannelKind kind : core::AllChannels()) {
    if (core::InfoOf(kind).on_by_default) names.emplace_back(core::ChannelName(kind));
  }
  return names;
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
  if (claim.Text(0, "status") == "canceled") {
    // Canceled after some recipients were walked: stop what it has not sent
    // yet, a batch at a time, from the last one walked down.
    const StopBatch stopped = StopNextBatch(tx, batch.broadcast_id, claim.Int(0, "cancel_cursor"),
                                            settings_.batch, StopLease{settings_.lease, owner_});
    tx.Commit();
    batch.recipients = stopped.recipients;
    batch.canceled = stopped.deliveries;
    batch.delayed_deleted = stopped.delayed;
    batch.digest_items_removed = stopped.digest_items;
    batch.finished = stopped.finished;
    return batch;
  }
  const hub::NotificationRequest each =
      RecipientRequest(static_cast<int>(claim.Int(0, "notification_version")),
                       nlohmann::json::parse(claim.Text(0, "notification")), batch.broadcast_id);
  const Audience audience{claim.OptString(0, "topic"), claim.OptString(0, "audience_where")};
  const auto cursor = claim.OptInt(0, "cursor");
  // The database's clock decides when this batch's deliveries are due (never
  // before now); the next batch's come after this one's at the set pace.
  const core::TimePoint due = core::ParsePgTimestamp(claim.Text(0, "deliveries_due_at"));
  const std::optional<core::TimePoint> paced_due =
      settings_.deliveries_per_second > 0 ? std::optional(due) : std::nullopt;

  // Paced deliveries due later need no wake-up: the previous batch's, due
  // before them, are still queued, and a worker sleeps only until the
  // earliest queued one is due (at most its poll interval). Waking the
  // workers for every batch made each of them run an empty claim and
  // recompute its wake-up per batch, on the cores the fan-out runs on.
  const bool wake_workers = !paced_due || claim.Bool(0, "due_now");

  const core::TimePoint now = clock_.Now();
  const auto walked = IsSetBased(each, now)
                          ? FanOutSetBased(tx, each, audience, cursor, now, paced_due, wake_workers)
                          : FanOutPerRecipient(tx, each, audience, cursor, now, paced_due);
  const auto spread =
      settings_.deliveries_per_second > 0
          ? std::chrono::duration_cast<core::TimePoint::duration>(std::chrono::duration<double>(
                static_cast<double>(walked.deliveries) / settings_.deliveries_per_second))
          : core::TimePoint::duration::zero();

  batch.recipients = walked.recipients;
  batch.created = walked.created;
  batch.finished = batch.recipients < settings_.batch;
  tx.Exec(queries::kFinishBatch, batch.broadcast_id, walked.last_user_id, batch.recipients,
          batch.created, batch.finished, std::chrono::duration<double>(settings_.lease).count(),
          owner_, core::FormatRfc3339Micros(due + spread));
  tx.Commit();
  notify_metrics_.CountCreated(batch.created);
  notify_metrics_.CountWorkflowSteps(walked.workflow_steps);
  recipients_.Inc(batch.recipients);
  return batch;
}

bool FanOut::IsSetBased(const hub::NotificationRequest& each, core::TimePoint now) const {
  // A template renders per recipient (locale, user and notification ids) and
  // may hold channels (workflows); a delayed notification is stored as a
  // request. Those take hub::NotifyService::NotifyIn's path.
  if (templates_ != nullptr && templates_->Find(each.type) != nullptr) return false;
  // A tenant's (its topic's): membership, the tenant's template, defaults
  // and branding are NotifyIn's.
  if (each.tenant) return false;
  return !each.title.empty() && each.DueAt(now) <= now;
}

FanOut::Walked FanOut::FanOutSetBased(db::Transaction& tx, const hub::NotificationRequest& each,
                                      const Audience& audience, std::optional<std::int64_t> cursor,
                                      core::TimePoint now,
                                      std::optional<core::TimePoint> deliveries_due,
                                      bool wake_workers) {
  // Composed once: without a template the content is the same for everyone.
  const hub::NotificationContent said = hub::ComposeContent(each, nullptr, "", {}, {});
  std::vector<std::string> requested;
  for (core::ChannelKind kind : core::AllChannels()) {
    if (std::ranges::find(each.channels, kind) != each.channels.end())
      requested.emplace_back(core::ChannelName(kind));
  }
  const std::string at = core::FormatRfc3339Micros(now);
  const auto row = tx.Exec(
      queries::kFanOutBatch, audience.topic, cursor, settings_.batch, each.type, said.title,
      said.body, each.link, each.data.dump(), each.category, each.critical, each.cancellation_key,
      *each.dedup_key, at, deliveries_due ? core::FormatRfc3339Micros(*deliveries_due) : at,
      db::ArrayLiteral(requested), wake_workers,
      db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kEmail)),
      db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kPhone)),
      db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kTelegramChat)),
      db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kPushSubscription)),
      db::ArrayLiteral(OnByDefault()),
      db::ArrayLiteral(core::ChannelsKeptIn(core::AddressStore::kDevice)), audience.where,
      said.actions.is_null() ? std::nullopt : std::optional(said.actions.dump()),
      said.tags.empty() ? std::nullopt : std::optional(db::ArrayLiteral(said.tags)));
  // Without a template there are no workflow steps.
  return Walked{static_cast<int>(row.Int(0, "recipients")),
                row.OptInt(0, "last_user_id"),
                static_cast<int>(row.Int(0, "created")),
                row.Int(0, "deliveries"),
                {}};
}

FanOut::Walked FanOut::FanOutPerRecipient(db::Transaction& tx, const hub::NotificationRequest& each,
                                          const Audience& audience,
                                          std::optional<std::int64_t> cursor, core::TimePoint now,
                                          std::optional<core::TimePoint> deliveries_due) {
  const auto recipients =
      audience.topic ? tx.Exec(queries::kTopicRecipients, *audience.topic, cursor, settings_.batch,
                               audience.where)
                     : tx.Exec(queries::kAllRecipients, cursor, settings_.batch, audience.where);
  std::vector<hub::NotificationRequest> requests(static_cast<std::size_t>(recipients.Rows()), each);
  for (int i = 0; i < recipients.Rows(); ++i)
    requests[static_cast<std::size_t>(i)].user_id = recipients.Int(i, 0);
  const std::vector<hub::BatchItemResult> results =
      hub::NotifyService::NotifyIn(tx, requests, now, templates_, deliveries_due.value_or(now));
  Walked walked;
  walked.recipients = recipients.Rows();
  if (walked.recipients > 0) walked.last_user_id = recipients.Int(walked.recipients - 1, 0);
  for (const auto& result : results) {
    if (const auto* done = std::get_if<hub::NotifyResult>(&result); done && done->created) {
      ++walked.created;
      walked.deliveries += static_cast<std::int64_t>(done->channels.size());
      walked.workflow_steps.insert(walked.workflow_steps.end(), done->workflow_steps.begin(),
                                   done->workflow_steps.end());
    }
  }
  return walked;
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
