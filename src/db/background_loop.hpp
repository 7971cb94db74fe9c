#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/backoff.hpp"
#include "core/metrics.hpp"
#include "db/listen_hub.hpp"

namespace chopar::db {

// What a loop's step tells the loop to do next.
class Next {
 public:
  // The step did work: step again at once.
  static Next Again() { return Next(std::chrono::milliseconds(0), true); }
  // Nothing (more) to do now: sleep up to `wait` (the polling fallback),
  // less if woken (Wake(), a NOTIFY, a reconnection of the listener, Stop()).
  // A `wait` of zero or less steps again at once.
  static Next SleepUpTo(std::chrono::milliseconds wait) { return Next(wait, false); }

  [[nodiscard]] std::chrono::milliseconds wait() const { return wait_; }
  [[nodiscard]] bool did_work() const { return did_work_; }

 private:
  Next(std::chrono::milliseconds wait, bool did_work) : wait_(wait), did_work_(did_work) {}
  std::chrono::milliseconds wait_;
  bool did_work_;
};

// What a step is told about its loop thread.
struct StepContext {
  int thread = 0;  // 0 .. threads-1
  // How many steps in a row, just before this one, returned SleepUpTo();
  // 0 after Again(). Steps that threw leave it as it was. For owners that
  // back off from asking again too often when there is nothing to do.
  int idle_streak = 0;
};

// A LISTEN wake-up for a loop: every NOTIFY on `channel`, and every
// (re)connection of the listening connection, wakes the loop. The loops of
// a process that listen on one database share its one LISTEN connection
// (db::ListenHub).
struct ListenOn {
  std::string conninfo;
  std::string channel;  // see db/notify_channels.hpp
};

// How a BackgroundLoop behaves; a value, set once at construction.
struct BackgroundLoopSettings {
  // Names the loop in the log ("<name> loop: …") and is the `loop` label of
  // its metrics: "delivery", "scheduler".
  std::string name;
  int threads = 1;                 // loop threads; values below 1 count as 1
  std::optional<ListenOn> listen;  // none: woken only by Wake() and timers
  // Pauses after a step threw, by failures in a row (core::BackoffDelay).
  core::BackoffPolicy error_backoff{std::chrono::milliseconds(100),
                                    std::chrono::milliseconds(5000)};
  // Whom a Wake() wakes: every sleeping thread, or one of them (the others
  // sleep on). One suits a step that takes all the work there is (a claim of
  // every due row): the others would only find nothing. Its owner then
  // calls WakeAnother() when one thread cannot take it all.
  enum class Wakes { kAllThreads, kOneThread } wakes = Wakes::kAllThreads;
  // After a sleep a Wake() ended, how long the woken thread waits before it
  // steps (only Stop() ends that wait early), so that the work of the
  // wake-ups that follow within it is taken by the same step: each NOTIFY
  // of a stream of single notifications would otherwise be a step of its
  // own. Zero: step at once. A timer's end, a wake-up that came during the
  // step and WakeAnother() (work is waiting already) step at once either way.
  std::chrono::milliseconds linger_after_wake{0};
};

// The shape every background loop of chopar shares: settings.threads threads
// each repeating a step function supplied by the owner; what the step
// returns (Next) says whether to step again at once or sleep, and a sleep
// ends early on Wake() — called by the owner, or by the process's
// db::ListenHub of the database when settings.listen is set. A Wake() that comes
// while a thread is stepping is not lost: that thread's next sleep is
// skipped.
//
// A step that throws is logged with the loop's name and retried after
// core::BackoffDelay(settings.error_backoff, failures in a row), a pause that
// only Stop() ends; nothing but Stop() ends a loop thread.
//
// Stop(deadline) drains: no new step starts, sleeping threads end at once,
// steps in progress may finish until the deadline. RunOnce-style stepping
// for tests stays with the owner: a step function is an ordinary member
// function the owner can also call directly.
//
// Metrics, registered in `metrics` at construction with {loop="<name>"}:
//   chopar_loop_steps_total{loop}           steps started
//   chopar_loop_errors_total{loop}          steps that threw
//   chopar_loop_wakeups_total{loop,source}  idle sleeps that ended by a
//       Wake() (source="notify": a NOTIFY, a reconnection, the owner; also
//       counted when a wake-up during the step skips the sleep) or by their
//       time running out (source="timer")
//
// Ownership: the step usually captures its owner, so the owner must stop
// the loop (StopAndJoin) in its destructor, before the members the step
// uses are destroyed; ~BackgroundLoop does too, as a last resort. The
// registry and random source must outlive the loop. Every member function
// is thread-safe.
class BackgroundLoop {
 public:
  using Step = std::function<Next(const StepContext&)>;

  BackgroundLoop(BackgroundLoopSettings settings, Step step, core::MetricsRegistry& metrics,
                 core::Random& random = core::ThreadLocalRandom::Instance());
  ~BackgroundLoop();  // StopAndJoin()
  BackgroundLoop(const BackgroundLoop&) = delete;
  BackgroundLoop& operator=(const BackgroundLoop&) = delete;

  // Starts the loop threads (each steps at once) and the listener, if any.
  // Later calls, and calls after Stop(), do nothing.
  void Start();

  // Wakes every sleeping thread (settings.wakes: or one of them); a thread
  // in the middle of a step steps again when it is done.
  void Wake();
  // Wakes one sleeping thread, if any, to share work a step found more of
  // than it takes at once; threads in a step are not affected.
  void WakeAnother();

  // Stops: no new step starts, sleeps and error pauses end, the listening
  // subscription is cancelled; then waits until `deadline` (from the
  // call) for the steps in progress. Returns true when every loop thread has
  // ended (they are joined); false when a step was still running at the
  // deadline (its thread ends after it; a later StopAndJoin() or the
  // destructor joins it). Before Start(), marks the loop stopped (Start()
  // then does nothing) and returns true. May be called again; not from a
  // step (it would wait for itself).
  bool Stop(std::chrono::milliseconds deadline);
  // Stop() without a deadline: waits for every step in progress, however
  // long, and joins every thread.
  void StopAndJoin();

  // Whether Stop() has been called: long steps may look at it to stop early.
  [[nodiscard]] bool Stopping() const { return stopping_.load(); }
  // Started and not yet stopping.
  [[nodiscard]] bool Running() const;
  // How many loop threads are asleep after SleepUpTo() with no wake-up
  // pending: from then on only Wake(), a NOTIFY, the timer or Stop() gets
  // them stepping again (for health checks and tests).
  [[nodiscard]] int Sleeping() const;
  // How many times a LISTEN has covered the loop's channel, counted after
  // the wake-up that follows (ListenHub::Subscription::connections); 0
  // without one.
  [[nodiscard]] std::uint64_t listener_connections() const;

  [[nodiscard]] const BackgroundLoopSettings& settings() const { return settings_; }

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  void Run(int thread);
  // After a step that returned SleepUpTo(wait): sleeps unless a wake-up came
  // since the step began (generation `seen`) or Stop() was called.
  void Sleep(int thread, std::chrono::milliseconds wait, std::uint64_t seen);
  // Counts and logs a step's failure, then waits out its backoff (only
  // Stop() ends the pause early).
  void PauseAfterError(std::string_view error, int failures);
  bool StopBy(std::optional<SteadyTime> deadline);

  const BackgroundLoopSettings settings_;
  const Step step_;
  core::Random& random_;
  core::Counter& steps_;
  core::Counter& errors_;
  core::Counter& notify_wakeups_;
  core::Counter& timer_wakeups_;

  mutable std::mutex mutex_;          // guards the fields below; orders wake-ups and stop
  std::condition_variable wake_cv_;   // sleeping threads wait here
  std::condition_variable ended_cv_;  // Stop() waits here for the threads to end
  bool started_ = false;
  std::atomic<bool> stopping_{false};  // written under mutex_, read anywhere
  std::uint64_t generation_ = 0;       // Wake() calls so far
  int running_ = 0;                    // loop threads not yet ended
  // Per thread: the generation it saw when it went to sleep, while asleep.
  // A sleeper not chosen by a Wake() of a Wakes::kOneThread loop is moved to
  // the new generation: it sleeps on as if it had slept after the wake-up.
  std::vector<std::optional<std::uint64_t>> asleep_since_;
  // Per thread: chosen by WakeAnother() while asleep.
  std::vector<bool> woken_;

  std::mutex join_mutex_;  // one caller at a time joins the threads
  std::vector<std::thread> threads_;
  // Set by Start() under mutex_; cancelled, not reset, by Stop().
  std::unique_ptr<ListenHub::Subscription> subscription_;
};

}  // namespace chopar::db
