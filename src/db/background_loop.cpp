#include "db/background_loop.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace chopar::db {
namespace {

constexpr const char* kWakeupsHelp =
    "Idle sleeps of a background loop ended by a wake-up (notify) or their timer (timer)";

}  // namespace

BackgroundLoop::BackgroundLoop(BackgroundLoopSettings settings, Step step,
                               core::MetricsRegistry& metrics, core::Random& random)
    : settings_(std::move(settings)),
      step_(std::move(step)),
      random_(random),
      steps_(metrics.GetCounter("chopar_loop_steps_total", "Steps started by a background loop",
                                {{"loop", settings_.name}})),
      errors_(metrics.GetCounter("chopar_loop_errors_total",
                                 "Steps of a background loop that threw (retried after a backoff)",
                                 {{"loop", settings_.name}})),
      notify_wakeups_(metrics.GetCounter("chopar_loop_wakeups_total", kWakeupsHelp,
                                         {{"loop", settings_.name}, {"source", "notify"}})),
      timer_wakeups_(metrics.GetCounter("chopar_loop_wakeups_total", kWakeupsHelp,
                                        {{"loop", settings_.name}, {"source", "timer"}})) {}

BackgroundLoop::~BackgroundLoop() { StopAndJoin(); }

void BackgroundLoop::Start() {
  std::lock_guard lock(mutex_);
  if (started_ || stopping_) return;
  started_ = true;
  const int threads = std::max(settings_.threads, 1);
  running_ = threads;
  asleep_since_.assign(static_cast<std::size_t>(threads), std::nullopt);
  woken_.assign(static_cast<std::size_t>(threads), false);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Run(i); });
  if (settings_.listen) {
    subscription_ = ListenHub::Shared(settings_.listen->conninfo)
                        ->Subscribe(
                            settings_.listen->channel, [this] { Wake(); },
                            [this](const std::vector<Notification>&) { Wake(); });
  }
}

void BackgroundLoop::Wake() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
    if (settings_.wakes == BackgroundLoopSettings::Wakes::kOneThread) {
      bool chosen = false;
      for (std::size_t i = 0; i < asleep_since_.size(); ++i) {
        if (!asleep_since_[i] || woken_[i]) continue;
        if (chosen) asleep_since_[i] = generation_;  // sleeps on
        chosen = true;
      }
    }
  }
  wake_cv_.notify_all();
}

void BackgroundLoop::WakeAnother() {
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < asleep_since_.size(); ++i) {
      if (asleep_since_[i] && *asleep_since_[i] == generation_ && !woken_[i]) {
        woken_[i] = true;
        break;
      }
    }
  }
  wake_cv_.notify_all();
}

bool BackgroundLoop::Stop(std::chrono::milliseconds deadline) {
  return StopBy(std::chrono::steady_clock::now() + deadline);
}

void BackgroundLoop::StopAndJoin() { StopBy(std::nullopt); }

bool BackgroundLoop::StopBy(std::optional<SteadyTime> deadline) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_cv_.notify_all();
  std::lock_guard join(join_mutex_);
  if (subscription_) subscription_->Cancel();
  {
    std::unique_lock lock(mutex_);
    const auto ended = [this] { return running_ == 0; };
    if (!deadline) {
      ended_cv_.wait(lock, ended);
    } else if (!ended_cv_.wait_until(lock, *deadline, ended)) {
      return false;
    }
  }
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  return true;
}

bool BackgroundLoop::Running() const {
  std::lock_guard lock(mutex_);
  return started_ && !stopping_;
}

int BackgroundLoop::Sleeping() const {
  std::lock_guard lock(mutex_);
  // A thread woken but not yet running again still has its slot set; its
  // generation is then older than the current one.
  int sleeping = 0;
  for (std::size_t i = 0; i < asleep_since_.size(); ++i)
    sleeping += asleep_since_[i] == generation_ && !woken_[i] ? 1 : 0;
  return sleeping;
}

std::uint64_t BackgroundLoop::listener_connections() const {
  std::lock_guard lock(mutex_);
  return subscription_ ? subscription_->connections() : 0;
}

void BackgroundLoop::Run(int thread) {
  int failures = 0;
  int idle_streak = 0;
  for (;;) {
    std::uint64_t seen;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
      seen = generation_;
    }
    steps_.Inc();
    std::optional<Next> next;
    try {
      next = step_(StepContext{.thread = thread, .idle_streak = idle_streak});
    } catch (const std::exception& e) {
      PauseAfterError(e.what(), ++failures);
      continue;
    } catch (...) {
      PauseAfterError("a step threw something other than a std::exception", ++failures);
      continue;
    }
    failures = 0;
    idle_streak = next->did_work() ? 0 : idle_streak + 1;
    if (next->wait() > std::chrono::milliseconds(0)) Sleep(thread, next->wait(), seen);
  }
  {
    std::lock_guard lock(mutex_);
    --running_;
  }
  ended_cv_.notify_all();
}

void BackgroundLoop::Sleep(int thread, std::chrono::milliseconds wait, std::uint64_t seen) {
  std::unique_lock lock(mutex_);
  if (stopping_) return;
  if (generation_ != seen) {
    notify_wakeups_.Inc();
    return;
  }
  const auto slot = static_cast<std::size_t>(thread);
  auto& asleep = asleep_since_[slot];
  asleep = seen;
  const bool woken = wake_cv_.wait_for(
      lock, wait, [&] { return stopping_.load() || *asleep != generation_ || woken_[slot]; });
  // WakeAnother(): work another thread found is waiting already.
  const bool asked_to_share = woken_[slot];
  asleep.reset();
  woken_[slot] = false;
  if (stopping_) return;
  (woken ? notify_wakeups_ : timer_wakeups_).Inc();
  if (woken && !asked_to_share && settings_.linger_after_wake > std::chrono::milliseconds(0)) {
    // Awake from here on: a wake-up that comes while this thread lingers
    // is not lost (its step sees the work), and a Wakes::kOneThread wake-up
    // goes to a thread still asleep.
    wake_cv_.wait_for(lock, settings_.linger_after_wake, [this] { return stopping_.load(); });
  }
}

void BackgroundLoop::PauseAfterError(std::string_view error, int failures) {
  errors_.Inc();
  const auto pause = core::BackoffDelay(settings_.error_backoff, failures, random_);
  spdlog::warn("{} loop: {} (retrying in {} ms)", settings_.name, error, pause.count());
  std::unique_lock lock(mutex_);
  wake_cv_.wait_for(lock, pause, [this] { return stopping_.load(); });
}

}  // namespace chopar::db
