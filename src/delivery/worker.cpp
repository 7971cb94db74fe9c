#include "delivery/worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "db/listen_loop.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/queries.hpp"
#include "delivery/record.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kMinIdleWait{10};
constexpr int kRecordTries = 3;
const core::BackoffPolicy kErrorBackoff{milliseconds(100), milliseconds(5000)};

}  // namespace

Worker::Worker(db::Pool& pool, ChannelSet channels, const core::Clock& clock,
               WorkerSettings settings, core::Random& random)
    : pool_(pool), channels_(channels), clock_(clock), settings_(settings), random_(random) {
  DeliveryMetrics::Global();  // registers the metric families up front
}

Worker::~Worker() {
  bool running;
  {
    std::lock_guard lock(mutex_);
    running = started_;
  }
  if (running) Stop();
  for (auto& thread : loops_) {
    if (thread.joinable()) thread.join();
  }
  if (listener_.joinable()) listener_.join();
}

RunStats Worker::RunOnce() {
  RunStats stats;
  ClaimResult claim = ClaimBatch(pool_, clock_.Now(), settings_, channels_);
  stats.claimed = claim.locked;
  stats.deferred = claim.deferred;
  auto& metrics = DeliveryMetrics::Global();
  for (core::ChannelKind kind : core::kAllChannels) {
    stats.sent += claim.sent[kind];
    stats.skipped += claim.skipped[kind];
    stats.failed += claim.failed[kind];
    metrics.Count(kind, DeliveryMetrics::Final::kSent, claim.sent[kind]);
    metrics.Count(kind, DeliveryMetrics::Final::kSkipped, claim.skipped[kind]);
    metrics.Count(kind, DeliveryMetrics::Final::kFailed, claim.failed[kind]);
  }
  for (const auto& [kind, seconds] : claim.sent_latency) metrics.ObserveLatency(kind, seconds);
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
      const bool transient = dynamic_cast<const db::ConnectionError*>(&e) != nullptr ||
                             dynamic_cast<const db::PoolTimeout*>(&e) != nullptr ||
                             dynamic_cast<const db::SerializationFailure*>(&e) != nullptr;
      if (!transient || attempt >= kRecordTries) {
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
  auto& metrics = DeliveryMetrics::Global();
  for (core::ChannelKind kind : core::kAllChannels) {
    stats.sent += result.sent[kind];
    stats.failed += result.failed[kind];
    metrics.Count(kind, DeliveryMetrics::Final::kSent, result.sent[kind]);
    metrics.Count(kind, DeliveryMetrics::Final::kFailed, result.failed[kind]);
  }
  for (const auto& [kind, seconds] : result.sent_latency) metrics.ObserveLatency(kind, seconds);
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

void Worker::Start() {
  std::lock_guard lock(mutex_);
  if (started_) return;
  started_ = true;
  listener_ = std::thread([this] { Listen(); });
  const int loops = std::max(settings_.concurrency, 1);
  running_loops_ = loops;
  for (int i = 0; i < loops; ++i) loops_.emplace_back([this] { Loop(); });
}

void Worker::Stop(milliseconds deadline) {
  {
    std::lock_guard lock(mutex_);
    if (!started_ || stopping_) return;
    stopping_ = true;
  }
  wake_cv_.notify_all();
  bool drained;
  {
    std::unique_lock lock(mutex_);
    drained = idle_cv_.wait_for(lock, deadline, [&] { return running_loops_ == 0; });
  }
  ReleaseInFlight();
  if (listener_.joinable()) listener_.join();
  if (drained) {
    for (auto& thread : loops_) thread.join();
  }
}

void Worker::Loop() {
  int failures = 0;
  int empty_claims = 0;
  while (!stopping_) {
    std::uint64_t seen;
    {
      std::lock_guard lock(mutex_);
      seen = wake_generation_;
    }
    try {
      const RunStats stats = RunOnce();
      failures = 0;
      if (stats.claimed > 0) {
        empty_claims = 0;
        continue;
      }
      WaitFor(IdleWait(++empty_claims), seen, /*wake_on_notify=*/true);
    } catch (const std::exception& e) {
      ++failures;
      const auto pause = core::BackoffDelay(kErrorBackoff, failures, random_);
      spdlog::warn("delivery loop: {} (retrying in {} ms)", e.what(), pause.count());
      WaitFor(pause, seen, /*wake_on_notify=*/false);
    }
  }
  std::lock_guard lock(mutex_);
  --running_loops_;
  idle_cv_.notify_all();
}

milliseconds Worker::IdleWait(int empty_claims) {
  const milliseconds poll = std::max(settings_.PollInterval(), kMinIdleWait);
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

void Worker::WaitFor(milliseconds timeout, std::uint64_t seen, bool wake_on_notify) {
  std::unique_lock lock(mutex_);
  wake_cv_.wait_for(lock, timeout, [&] {
    return stopping_.load() || (wake_on_notify && wake_generation_ != seen);
  });
}

void Worker::Wake() {
  {
    std::lock_guard lock(mutex_);
    ++wake_generation_;
  }
  wake_cv_.notify_all();
}

void Worker::Listen() {
  db::RunListenLoop(
      pool_.conninfo(), kWakeChannel, "delivery listener", stopping_, [this] { Wake(); },
      [this](milliseconds pause) { WaitFor(pause, 0, /*wake_on_notify=*/false); });
}

}  // namespace chopar::delivery
