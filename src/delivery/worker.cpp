#include "delivery/worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "db/notify_channels.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/queries.hpp"
#include "delivery/record.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kMinIdleWait{10};
constexpr int kRecordTries = 3;
const core::BackoffPolicy kErrorBackoff{milliseconds(100), milliseconds(5000)};

db::BackgroundLoopSettings LoopSettings(const db::Pool& pool, const WorkerSettings& settings) {
  db::BackgroundLoopSettings loop;
  loop.name = "delivery";
  loop.threads = settings.concurrency;
  loop.listen = db::ListenOn{pool.conninfo(), db::kDeliveriesChannel};
  loop.error_backoff = kErrorBackoff;
  return loop;
}

}  // namespace

Worker::Worker(db::Pool& pool, ChannelSet channels, const core::Clock& clock,
               core::MetricsRegistry& metrics, WorkerSettings settings, core::Random& random)
    : pool_(pool),
      channels_(channels),
      clock_(clock),
      settings_(settings),
      random_(random),
      metrics_(metrics),
      loop_(
          LoopSettings(pool, settings_), [this](const db::StepContext& c) { return Step(c); },
          metrics, random) {}

Worker::~Worker() {
  Stop();
  loop_.StopAndJoin();
}

RunStats Worker::RunOnce() {
  RunStats stats;
  ClaimResult claim = ClaimBatch(pool_, clock_.Now(), settings_, channels_);
  stats.claimed = claim.locked;
  stats.deferred = claim.deferred;
  for (core::ChannelKind kind : core::kAllChannels) {
    stats.sent += claim.sent[kind];
    stats.skipped += claim.skipped[kind];
    stats.failed += claim.failed[kind];
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

  const std::vector<channels::Outcome> outcomes = SendAll(claim.to_send);
  const RunStats recorded = Record(claim.to_send, outcomes);
  stats.sent += recorded.sent;
  stats.retried = recorded.retried;
  stats.failed += recorded.failed;
  stats.ignored = recorded.ignored;
  return stats;
}

std::vector<channels::Outcome> Worker::SendAll(const std::vector<ClaimedDelivery>& claimed) {
  std::vector<channels::Outcome> outcomes(claimed.size());
  for (core::ChannelKind kind : core::kAllChannels) {
    std::vector<std::size_t> positions;
    std::vector<channels::Message> messages;
    for (std::size_t i = 0; i < claimed.size(); ++i) {
      const channels::Message& m = claimed[i].message;
      if (m.channel != kind) continue;
      if (auto missing = channels::MissingAddress(m)) {
        outcomes[i] = channels::Outcome::Permanent(*missing);
        continue;
      }
      positions.push_back(i);
      messages.push_back(m);
    }
    if (messages.empty()) continue;
    channels::Channel& channel = channels_.For(kind);
    std::vector<channels::Outcome> answered;
    try {
      answered = channel.Send(messages);
    } catch (const std::exception& e) {
      spdlog::error("{} channel ({}) threw on a batch of {}: {}", core::ChannelName(kind),
                    channel.ProviderName(), messages.size(), e.what());
      answered.assign(messages.size(),
                      channels::Outcome::Retry(std::string("channel error: ") + e.what()));
    }
    if (answered.size() != messages.size()) {
      spdlog::error("{} channel ({}) answered {} outcomes for {} messages", core::ChannelName(kind),
                    channel.ProviderName(), answered.size(), messages.size());
      answered.resize(messages.size(),
                      channels::Outcome::Retry("channel gave no outcome for this message"));
    }
    for (std::size_t j = 0; j < positions.size(); ++j)
      outcomes[positions[j]] = std::move(answered[j]);
  }
  return outcomes;
}

RunStats Worker::Record(const std::vector<ClaimedDelivery>& claimed,
                        const std::vector<channels::Outcome>& outcomes) {
  RecordResult result;
  for (int attempt = 1;; ++attempt) {
    try {
      result = RecordOutcomes(pool_, clock_.Now(), claimed, outcomes, settings_, random_);
      break;
    } catch (const std::exception& e) {
      if (!db::IsTransient(e) || attempt >= kRecordTries) {
        spdlog::error(
            "recording {} delivery outcomes failed ({}); their leases will run out and they "
            "will be sent again",
            claimed.size(), e.what());
        throw;
      }
      spdlog::warn("recording delivery outcomes failed, retrying: {}", e.what());
      std::this_thread::sleep_for(core::BackoffCeiling(kErrorBackoff, attempt));
    }
  }
  if (result.ignored > 0) {
    spdlog::info("{} delivery outcomes arrived after their claim was taken back; ignored",
                 result.ignored);
  }
  RunStats stats;
  stats.retried = result.retried;
  stats.ignored = result.ignored;
  for (core::ChannelKind kind : core::kAllChannels) {
    stats.sent += result.sent[kind];
    stats.failed += result.failed[kind];
    metrics_.Count(kind, DeliveryMetrics::Final::kSent, result.sent[kind]);
    metrics_.Count(kind, DeliveryMetrics::Final::kFailed, result.failed[kind]);
  }
  for (const auto& [kind, seconds] : result.sent_latency) metrics_.ObserveLatency(kind, seconds);
  return stats;
}

std::uint64_t Worker::RegisterInFlight(const std::vector<ClaimedDelivery>& claimed) {
  Claims claims;
  claims.reserve(claimed.size());
  for (const auto& c : claimed) claims.emplace_back(c.message.delivery_id, c.claim_token);
  std::lock_guard lock(inflight_mutex_);
  const std::uint64_t batch = next_batch_++;
  inflight_.emplace(batch, std::move(claims));
  return batch;
}

void Worker::UnregisterInFlight(std::uint64_t batch) {
  std::lock_guard lock(inflight_mutex_);
  inflight_.erase(batch);
}

void Worker::ReleaseInFlight() {
  Claims claims;
  {
    std::lock_guard lock(inflight_mutex_);
    for (const auto& [batch, held] : inflight_)
      claims.insert(claims.end(), held.begin(), held.end());
  }
  if (claims.empty()) return;
  try {
    const int released =
        ReleaseClaims(pool_, clock_.Now(), claims,
                      "released at shutdown: the send did not finish before the drain deadline");
    spdlog::warn("delivery worker stopped with {} sends in flight; released {} claims",
                 claims.size(), released);
  } catch (const std::exception& e) {
    spdlog::error("releasing {} delivery claims failed ({}); they return when their leases run out",
                  claims.size(), e.what());
  }
}

void Worker::Start() { loop_.Start(); }

void Worker::Stop(milliseconds deadline) {
  if (!loop_.Running()) return;
  loop_.Stop(deadline);
  ReleaseInFlight();
}

db::Next Worker::Step(const db::StepContext& context) {
  const RunStats stats = RunOnce();
  if (stats.claimed > 0) return db::Next::Again();
  return db::Next::SleepUpTo(IdleWait(context.idle_streak + 1));
}

milliseconds Worker::IdleWait(int empty_claims) {
  const milliseconds poll = std::max(settings_.poll_interval, kMinIdleWait);
  // Rows that are due but cannot be claimed are held by another claim (a
  // moment) or by some long transaction: back off from re-asking at once.
  const milliseconds floor =
      std::min(poll, core::BackoffCeiling({kMinIdleWait, poll}, std::max(empty_claims, 1)));
  std::optional<std::string> next;
  {
    auto conn = pool_.Acquire();
    next = conn->Exec(queries::kNextWakeup).OptString(0, 0);
  }
  if (!next) return poll;
  const auto until =
      std::chrono::duration_cast<milliseconds>(core::ParsePgTimestamp(*next) - clock_.Now());
  return std::clamp(until, floor, poll);
}

}  // namespace chopar::delivery
