#include "delivery/worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <thread>
#include <unordered_set>

#include "db/errors.hpp"
#include "db/notify_channels.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/queries.hpp"
#include "delivery/suppressions.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kMinIdleWait{10};
const core::BackoffPolicy kErrorBackoff{milliseconds(100), milliseconds(5000)};

db::BackgroundLoopSettings LoopSettings(const db::Pool& pool, const WorkerSettings& settings) {
  db::BackgroundLoopSettings loop;
  loop.name = "delivery";
  loop.threads = settings.concurrency;
  loop.listen = db::ListenOn{pool.listen_conninfo(), db::kDeliveriesChannel};
  loop.error_backoff = kErrorBackoff;
  // A claim takes every due row up to a batch: a NOTIFY wakes one thread,
  // and a full batch wakes another (RunOnce). Waking all of them made each
  // single notification cost an empty claim per extra thread.
  loop.wakes = db::BackgroundLoopSettings::Wakes::kOneThread;
  // A stream of single notifications is a NOTIFY each: without a pause
  // every one was a claim of its own (a round trip, the candidates' lookup,
  // the update and the commit for one or two rows).
  loop.linger_after_wake = settings.linger;
  return loop;
}

// Runs `attempt` until it returns, retrying transient database errors with
// backoff while the next try could still start before `holds_until()`;
// then, or for any other error, rethrows. `what` names the work in the log.
template <typename Attempt>
auto RetryWhileLeased(Attempt attempt, const std::function<steady_clock::time_point()>& holds_until,
                      std::string_view what) {
  for (int failures = 1;; ++failures) {
    try {
      return attempt();
    } catch (const std::exception& e) {
      const milliseconds pause = core::BackoffCeiling(kErrorBackoff, failures);
      if (!db::IsTransient(e) || steady_clock::now() + pause >= holds_until()) throw;
      if (failures == 1 || failures % 10 == 0) {
        spdlog::warn("{} failed (try {}), retrying while the lease holds: {}", what, failures,
                     e.what());
      }
      std::this_thread::sleep_for(pause);
    }
  }
}

// The lease keeper's own pool: the main pool's connection, pooling mode and
// session settings (so outcomes recorded on it emit chopar's own events, and
// behind PgBouncer it sends no startup options), sized for the sends that
// can be in flight at once.
db::PoolSettings LeasePoolSettings(const db::Pool& pool, const WorkerSettings& settings) {
  db::PoolSettings lease = pool.settings();
  lease.size = std::max(settings.concurrency, 1) + 2;
  lease.acquire_timeout = db::Pool::kDefaultAcquireTimeout;
  return lease;
}

}  // namespace

Worker::Worker(db::Pool& pool, ChannelSet channels, const core::Clock& clock,
               core::MetricsRegistry& metrics, WorkerSettings settings, core::Random& random,
               const templates::TemplateLookup* templates)
    : pool_(pool),
      channels_(channels),
      clock_(clock),
      settings_(settings),
      templates_(templates),
      random_(random),
      metrics_(metrics),
      lease_pool_(LeasePoolSettings(pool, settings_)),
      leases_(lease_pool_, clock, settings_.lease, metrics),
      loop_(
          LoopSettings(pool, settings_), [this](const db::StepContext& c) { return Step(c); },
          metrics, random) {}

Worker::~Worker() {
  Stop();
  loop_.StopAndJoin();
}

RunStats Worker::RunOnce() {
  RunStats stats;
  const SteadyTime claimed_at = steady_clock::now();
  ClaimResult claim =
      ClaimBatch(pool_, db::SqlNow(clock_), settings_, channels_, templates_, &horizon_);
  stats.claimed = claim.locked;
  stats.horizon_lowered = claim.horizon_lowered;
  // Nothing handed to a provider: what the claim saw of the queue still
  // holds (a send could take long, and its retries fall due later).
  if (claim.to_send.empty()) stats.next_due_ms = claim.next_due_ms;
  // More may be due: another thread claims while this one sends.
  if (claim.locked >= settings_.batch) loop_.WakeAnother();
  stats.deferred = claim.deferred;
  for (core::ChannelKind kind : core::AllChannels()) {
    stats.sent += claim.sent[kind];
    stats.skipped += claim.skipped[kind];
    stats.failed += claim.failed[kind];
    stats.canceled += claim.canceled[kind];
    metrics_.Count(kind, DeliveryMetrics::Final::kCanceled, claim.canceled[kind]);
    metrics_.Count(kind, DeliveryMetrics::Final::kSent, claim.sent[kind]);
    metrics_.Count(kind, DeliveryMetrics::Final::kSkipped, claim.skipped[kind]);
    metrics_.Count(kind, DeliveryMetrics::Final::kFailed, claim.failed[kind]);
  }
  for (const auto& [kind, seconds] : claim.sent_latency) metrics_.ObserveLatency(kind, seconds);
  if (claim.to_send.empty()) return stats;

  const std::uint64_t batch = RegisterInFlight(claim.to_send);
  struct Unregister {
    Worker& worker;
    std::uint64_t batch;
    ~Unregister() { worker.UnregisterInFlight(batch); }
  } unregister{*this, batch};

  // One channel after another; each part's lease is stamped as it starts.
  for (core::ChannelKind kind : core::AllChannels()) {
    std::vector<ClaimedDelivery> part;
    for (ClaimedDelivery& claimed : claim.to_send) {
      if (claimed.message.channel == kind) part.push_back(std::move(claimed));
    }
    if (part.empty()) continue;
    if (loop_.Stopping()) {
      Release(KeysOf(part), "released at shutdown before its channel's turn");
      continue;
    }
    SendPart(kind, std::move(part), claimed_at, stats);
  }
  return stats;
}

void Worker::SendPart(core::ChannelKind kind, std::vector<ClaimedDelivery> part,
                      SteadyTime claimed_at, RunStats& stats) {
  const SteadyTime claim_holds_until = claimed_at + settings_.lease;
  // A message without an address is answered here, with no send to start.
  std::vector<ClaimedDelivery> sendable, unaddressable;
  std::vector<channels::Outcome> unaddressable_outcomes;
  for (ClaimedDelivery& claimed : part) {
    if (auto missing = channels::MissingAddress(claimed.message)) {
      unaddressable_outcomes.push_back(channels::Outcome::Permanent(*missing));
      unaddressable.push_back(std::move(claimed));
    } else {
      sendable.push_back(std::move(claimed));
    }
  }
  // A suppressed address (a hard bounce) is answered here too: skipped.
  if (const auto suppressed = SuppressedAmong(pool_, kind, sendable); !suppressed.empty()) {
    std::vector<ClaimedDelivery> rest;
    for (ClaimedDelivery& claimed : sendable) {
      if (const auto found = suppressed.find(SuppressionAddress(claimed.message).value_or(""));
          found != suppressed.end()) {
        unaddressable_outcomes.push_back(
            channels::Outcome::Skipped("suppressed: " + found->second));
        unaddressable.push_back(std::move(claimed));
      } else {
        rest.push_back(std::move(claimed));
      }
    }
    sendable = std::move(rest);
  }
  if (!unaddressable.empty()) {
    Count(RecordUntil(unaddressable, unaddressable_outcomes, [&] { return claim_holds_until; }),
          stats);
  }
  if (sendable.empty()) return;

  const SteadyTime stamped_at = steady_clock::now();
  const std::vector<std::int64_t> ours = BeginUntil(sendable, claim_holds_until);
  const std::unordered_set<std::int64_t> still_ours(ours.begin(), ours.end());
  std::vector<ClaimedDelivery> started;
  for (ClaimedDelivery& claimed : sendable) {
    if (still_ours.contains(claimed.message.delivery_id)) started.push_back(std::move(claimed));
  }
  if (const int lost = static_cast<int>(sendable.size() - started.size()); lost > 0) {
    // Their claim ran out while an earlier channel sent (another worker has
    // them), or their broadcast was canceled meanwhile.
    stats.ignored += lost;
    spdlog::info("{} {} deliveries were taken back or canceled before their turn; not sent here",
                 lost, core::ChannelName(kind));
  }
  if (started.empty()) return;
  LeaseKeeper::Kept kept = leases_.Keep(KeysOf(started), stamped_at);
  SendAndRecord(kind, std::move(started), kept, claim_holds_until, stats);
}

void Worker::SendAndRecord(core::ChannelKind kind, std::vector<ClaimedDelivery> started,
                           LeaseKeeper::Kept& kept, SteadyTime claim_holds_until,
                           RunStats& stats) {
  std::vector<channels::Message> messages;
  messages.reserve(started.size());
  for (const ClaimedDelivery& claimed : started) messages.push_back(claimed.message);
  const auto holds_until = [&] { return std::max(kept.HoldsUntil(), claim_holds_until); };

  // Each report is recorded at once, in its own transaction, while the
  // rest of the batch is still out. A recording that fails for good (its
  // lease ran out) ends the send: the rows not yet recorded then end as
  // "outcome unknown" when another worker takes them back.
  channels::Channel& channel = channels_.For(kind);
  std::vector<bool> reported(started.size(), false);
  std::exception_ptr record_failed;
  const auto record = [&](std::vector<channels::IndexedOutcome> report) {
    std::vector<ClaimedDelivery> rows;
    std::vector<channels::Outcome> outcomes;
    for (channels::IndexedOutcome& answered : report) {
      if (answered.index >= started.size() || reported[answered.index]) {
        spdlog::error("{} channel reported message {} of {} twice or out of range; ignored",
                      core::ChannelName(kind), answered.index, started.size());
        continue;
      }
      reported[answered.index] = true;
      if (answered.outcome.provider.empty()) {
        // At most 64 characters, as the column takes.
        answered.outcome.provider = std::string(channel.ProviderName().substr(0, 64));
      }
      rows.push_back(std::move(started[answered.index]));
      outcomes.push_back(std::move(answered.outcome));
    }
    if (rows.empty()) return;
    try {
      Count(RecordUntil(rows, outcomes, holds_until), stats);
    } catch (...) {
      record_failed = std::current_exception();
      throw;
    }
    kept.Forget(KeysOf(rows));
  };

  std::optional<std::string> channel_error;
  try {
    channel.SendReporting(messages, record);
  } catch (const std::exception& e) {
    if (record_failed) std::rethrow_exception(record_failed);
    spdlog::error("{} channel ({}) threw on a batch of {}: {}", core::ChannelName(kind),
                  channel.ProviderName(), messages.size(), e.what());
    channel_error = std::string("channel error: ") + e.what();
  }

  std::vector<ClaimedDelivery> rows;
  std::vector<channels::Outcome> outcomes;
  for (std::size_t i = 0; i < started.size(); ++i) {
    if (reported[i]) continue;
    rows.push_back(std::move(started[i]));
    outcomes.push_back(channels::Outcome::Retry(
        channel_error.value_or("channel gave no outcome for this message")));
  }
  if (rows.empty()) return;
  if (!channel_error) {
    spdlog::error("{} channel ({}) gave no outcome for {} of {} messages", core::ChannelName(kind),
                  channel.ProviderName(), rows.size(), messages.size());
  }
  Count(RecordUntil(rows, outcomes, holds_until), stats);
}

std::vector<std::int64_t> Worker::BeginUntil(const std::vector<ClaimedDelivery>& part,
                                             SteadyTime holds_until) {
  const std::vector<ClaimKey> keys = KeysOf(part);
  try {
    return RetryWhileLeased(
        [&] { return BeginSends(lease_pool_, db::SqlNow(clock_), keys, settings_.lease); },
        [&] { return holds_until; }, "starting a delivery batch");
  } catch (const std::exception& e) {
    spdlog::error(
        "starting the send of {} deliveries failed ({}); nothing was sent, and they "
        "will be claimed again when their lease runs out",
        part.size(), e.what());
    throw;
  }
}

RecordResult Worker::RecordUntil(std::span<const ClaimedDelivery> rows,
                                 std::span<const channels::Outcome> outcomes,
                                 const std::function<SteadyTime()>& holds_until) {
  RecordResult result;
  try {
    result = RetryWhileLeased(
        [&] {
          return RecordOutcomes(lease_pool_, db::SqlNow(clock_), rows, outcomes, settings_,
                                random_);
        },
        holds_until, "recording delivery outcomes");
  } catch (const std::exception& e) {
    spdlog::error(
        "recording {} delivery outcomes failed ({}) and their lease ran out meanwhile: they are "
        "taken back as \"outcome unknown\", never sent again",
        rows.size(), e.what());
    throw;
  }
  if (result.ignored > 0) {
    spdlog::info("{} delivery outcomes arrived after their claim was taken back; ignored",
                 result.ignored);
  }
  return result;
}

void Worker::Count(const RecordResult& recorded, RunStats& stats) {
  stats.retried += recorded.retried;
  stats.ignored += recorded.ignored;
  for (core::ChannelKind kind : core::AllChannels()) {
    stats.sent += recorded.sent[kind];
    stats.failed += recorded.failed[kind];
    stats.skipped += recorded.skipped[kind];
    metrics_.Count(kind, DeliveryMetrics::Final::kSent, recorded.sent[kind]);
    metrics_.Count(kind, DeliveryMetrics::Final::kFailed, recorded.failed[kind]);
    metrics_.Count(kind, DeliveryMetrics::Final::kSkipped, recorded.skipped[kind]);
    metrics_.CountOutcomeUnknown(kind, recorded.outcome_unknown[kind]);
  }
  for (const auto& [kind, seconds] : recorded.sent_latency) metrics_.ObserveLatency(kind, seconds);
}

void Worker::Release(std::span<const ClaimKey> claims, const char* reason) {
  if (claims.empty()) return;
  try {
    const int released = ReleaseClaims(lease_pool_, db::SqlNow(clock_), claims, reason);
    spdlog::info(
        "delivery worker stopping: released {} of {} claimed deliveries not yet handed "
        "to a provider{}",
        released, claims.size(),
        released < static_cast<int>(claims.size())
            ? "; the others' sends are running and will be recorded when they end"
            : "");
  } catch (const std::exception& e) {
    spdlog::error("releasing {} delivery claims failed ({}); they return when their leases run out",
                  claims.size(), e.what());
  }
}

std::uint64_t Worker::RegisterInFlight(const std::vector<ClaimedDelivery>& claimed) {
  std::vector<ClaimKey> keys = KeysOf(claimed);
  std::lock_guard lock(inflight_mutex_);
  const std::uint64_t batch = next_batch_++;
  inflight_.emplace(batch, std::move(keys));
  return batch;
}

void Worker::UnregisterInFlight(std::uint64_t batch) {
  std::lock_guard lock(inflight_mutex_);
  inflight_.erase(batch);
}

void Worker::ReleaseInFlight() {
  std::vector<ClaimKey> claims;
  {
    std::lock_guard lock(inflight_mutex_);
    for (const auto& [batch, held] : inflight_)
      claims.insert(claims.end(), held.begin(), held.end());
  }
  // Only rows never handed to a provider are released (release_claims.sql
  // checks send_started_at): a send still running keeps its claim.
  Release(claims, "released at shutdown: not yet handed to a provider when the drain ended");
}

void Worker::Start() { loop_.Start(); }

void Worker::Stop(milliseconds deadline) {
  if (!loop_.Running()) return;
  loop_.Stop(deadline);
  ReleaseInFlight();
}

db::Next Worker::Step(const db::StepContext& context) {
  const RunStats stats = RunOnce();
  // A full batch may have left more behind: claim again at once. A partial
  // one took every due row no other claim held, so asking again would find
  // nothing (a third of a single notification's database time went to
  // such empty claims): sleep until the next row falls due, or a NOTIFY of
  // rows queued since this claim began ends the sleep at once.
  if (stats.claimed >= settings_.batch || stats.horizon_lowered) return db::Next::Again();
  return db::Next::SleepUpTo(
      IdleWait(stats.claimed > 0 ? 1 : context.idle_streak + 1, stats.next_due_ms));
}

milliseconds Worker::IdleWait(int empty_claims, std::optional<std::optional<double>> next_due_ms) {
  const milliseconds poll = std::max(settings_.poll_interval, kMinIdleWait);
  // Rows that are due but cannot be claimed are held by another claim (a
  // moment) or by some long transaction: back off from re-asking at once.
  const milliseconds floor =
      std::min(poll, core::BackoffCeiling({kMinIdleWait, poll}, std::max(empty_claims, 1)));
  if (!next_due_ms) {
    const ActiveHorizon::Micros bound = horizon_.Current();
    const auto next = pool_.Acquire()->Exec(
        queries::kNextWakeup, db::Params(db::SqlNowParam(clock_), ActiveHorizon::Sql(bound)));
    // Lowered since the claim: claim again after the shortest wait.
    if (horizon_.Learn(bound, next.Text(0, "horizon"))) return floor;
    const auto wait = next.OptString(0, "wait_ms");
    next_due_ms = wait ? std::optional(std::stod(*wait)) : std::nullopt;
  }
  if (!*next_due_ms) return poll;
  const auto until = milliseconds(static_cast<std::int64_t>(**next_due_ms));
  return std::clamp(until, floor, poll);
}

}  // namespace chopar::delivery
