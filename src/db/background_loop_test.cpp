// db::BackgroundLoop without a database: step functions, Wake() and timers.
#include "db/background_loop.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/loop_test_support.hpp"
#include "testing/child_process.hpp"
#include "testing/log_capture.hpp"

namespace chopar::db {
namespace {

using namespace std::chrono_literals;
using chopar::testing::WaitUntil;
using testing::kLongSleep;
using testing::kPatience;
using testing::LoopCounter;
using testing::StepLog;

BackgroundLoopSettings Settings(int threads = 1) {
  BackgroundLoopSettings settings;
  settings.name = "test";
  settings.threads = threads;
  return settings;
}

// A step blocks in Pass() until the test opens the gate.
class Gate {
 public:
  void Pass() {
    std::unique_lock lock(mutex_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  bool WaitEntered() {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, kPatience, [this] { return entered_; });
  }
  void Open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool open_ = false;
};

// Jitter pinned to the bottom of its range; records each range asked for.
class BottomRandom final : public core::Random {
 public:
  std::uint64_t Uniform(std::uint64_t upper) override {
    std::lock_guard lock(mutex_);
    ceilings_.push_back(upper);
    return 0;
  }
  std::vector<std::uint64_t> ceilings() {
    std::lock_guard lock(mutex_);
    return ceilings_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::uint64_t> ceilings_;
};

// Jitter pinned to the top of its range.
class TopRandom final : public core::Random {
 public:
  std::uint64_t Uniform(std::uint64_t upper) override { return upper; }
};

using chopar::testing::LogCapture;

TEST(BackgroundLoopTest, EveryThreadStepsAtStartAndStopEndsTheirSleeps) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoop loop(Settings(3), steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  EXPECT_FALSE(loop.Running());
  loop.Start();
  EXPECT_TRUE(loop.Running());
  ASSERT_TRUE(steps.WaitFor(3));
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 3; }, kPatience));

  EXPECT_TRUE(loop.Stop(kPatience)) << "sleeping threads end at once, long before their timer";
  EXPECT_TRUE(loop.Stopping());
  EXPECT_FALSE(loop.Running());
  std::set<int> threads;
  for (const StepContext& context : steps.Contexts()) threads.insert(context.thread);
  EXPECT_EQ(threads, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(steps.Count(), 3);
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_steps_total"), 3);
  EXPECT_NE(metrics.Render().find("chopar_loop_steps_total{loop=\"test\"} 3"), std::string::npos);
}

TEST(BackgroundLoopTest, WakeEndsASleepLongBeforeItsTimer) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoop loop(Settings(), steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 1; }, kPatience));
  ASSERT_EQ(steps.Count(), 1);

  loop.Wake();

  EXPECT_TRUE(steps.WaitFor(2));
  EXPECT_TRUE(WaitUntil([&] { return loop.Sleeping() == 1; }, kPatience));
  EXPECT_EQ(steps.Count(), 2);
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "notify"), 1);
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "timer"), 0);
}

// A woken thread lingers before it steps, and the wake-ups that come in the
// meantime are taken by that one step. The linger is long (2 s) so that the
// five wake-ups, made at once, all fall inside it.
TEST(BackgroundLoopTest, WakeUpsDuringALingerAreTakenByOneStep) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoopSettings settings = Settings();
  settings.linger_after_wake = 2s;
  BackgroundLoop loop(settings, steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 1; }, kPatience));

  loop.Wake();
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 0; }, kPatience));
  for (int i = 0; i < 5; ++i) loop.Wake();

  ASSERT_TRUE(steps.WaitFor(2));
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 1; }, kPatience));
  EXPECT_EQ(steps.Count(), 2) << "six wake-ups, one step after the first sleep";
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "notify"), 1);
}

TEST(BackgroundLoopTest, StopEndsALinger) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoopSettings settings = Settings();
  settings.linger_after_wake = kLongSleep;
  BackgroundLoop loop(settings, steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 1; }, kPatience));
  loop.Wake();
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 0; }, kPatience));

  EXPECT_TRUE(loop.Stop(kPatience)) << "a lingering thread ends at once, long before its linger";
  EXPECT_EQ(steps.Count(), 1) << "no step after Stop()";
}

TEST(BackgroundLoopTest, AThreadAskedToShareWorkDoesNotLinger) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoopSettings settings = Settings(2);
  settings.wakes = BackgroundLoopSettings::Wakes::kOneThread;
  settings.linger_after_wake = kLongSleep;
  BackgroundLoop loop(settings, steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(steps.WaitFor(2));
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 2; }, kPatience));

  loop.WakeAnother();
  EXPECT_TRUE(steps.WaitFor(3)) << "the work another thread found is waiting: step at once";
  EXPECT_TRUE(loop.Stop(kPatience));
}

TEST(BackgroundLoopTest, AWakeDuringAStepSkipsTheNextSleep) {
  core::MetricsRegistry metrics;
  StepLog steps;
  Gate first_step;
  BackgroundLoop loop(
      Settings(),
      [&](const StepContext& context) {
        if (steps.Record(context) == 1) first_step.Pass();
        return Next::SleepUpTo(kLongSleep);
      },
      metrics);
  loop.Start();
  ASSERT_TRUE(first_step.WaitEntered());

  loop.Wake();
  first_step.Open();

  EXPECT_TRUE(steps.WaitFor(2)) << "the wake-up came while stepping: it must not be lost";
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "notify"), 1);
}

TEST(BackgroundLoopTest, AgainStepsAtOnceAndATimerEndsAShortSleep) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoop loop(
      Settings(),
      [&](const StepContext& context) {
        return steps.Record(context) <= 3 ? Next::Again() : Next::SleepUpTo(5ms);
      },
      metrics);
  loop.Start();
  ASSERT_TRUE(steps.WaitFor(6));
  loop.StopAndJoin();

  std::vector<int> streaks;
  for (const StepContext& context : steps.Contexts()) streaks.push_back(context.idle_streak);
  streaks.resize(6);
  EXPECT_EQ(streaks, (std::vector<int>{0, 0, 0, 0, 1, 2}));
  EXPECT_GE(LoopCounter(metrics, "chopar_loop_wakeups_total", "timer"), 2);
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "notify"), 0);
}

TEST(BackgroundLoopTest, StopWaitsForTheStepInProgress) {
  core::MetricsRegistry metrics;
  StepLog steps;
  Gate gate;
  std::atomic<bool> step_finished{false};
  BackgroundLoop loop(
      Settings(),
      [&](const StepContext& context) {
        steps.Record(context);
        gate.Pass();
        step_finished = true;
        return Next::Again();
      },
      metrics);
  loop.Start();
  ASSERT_TRUE(gate.WaitEntered());

  std::atomic<bool> drained{false};
  std::atomic<bool> finished_when_stopped{false};
  std::thread stopper([&] {
    drained = loop.Stop(kPatience);
    finished_when_stopped = step_finished.load();
  });
  ASSERT_TRUE(WaitUntil([&] { return loop.Stopping(); }, kPatience));
  gate.Open();
  stopper.join();

  EXPECT_TRUE(drained);
  EXPECT_TRUE(finished_when_stopped) << "Stop() returned before the step it waits for";
  EXPECT_EQ(steps.Count(), 1) << "no step starts once stopping, even after Again()";
}

TEST(BackgroundLoopTest, StopGivesUpAtItsDeadlineAndSaysSo) {
  core::MetricsRegistry metrics;
  StepLog steps;
  Gate gate;
  BackgroundLoop loop(
      Settings(),
      [&](const StepContext& context) {
        steps.Record(context);
        gate.Pass();
        return Next::Again();
      },
      metrics);
  loop.Start();
  ASSERT_TRUE(gate.WaitEntered());

  const auto began = std::chrono::steady_clock::now();
  EXPECT_FALSE(loop.Stop(50ms));
  EXPECT_GE(std::chrono::steady_clock::now() - began, 50ms);
  EXPECT_FALSE(loop.Running());

  gate.Open();
  loop.StopAndJoin();
  EXPECT_EQ(steps.Count(), 1);
}

TEST(BackgroundLoopTest, BusyThreadsStopToo) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoop loop(Settings(2), steps.Recording(Next::Again()), metrics);
  loop.Start();
  ASSERT_TRUE(steps.WaitFor(100));
  EXPECT_TRUE(loop.Stop(kPatience));
}

TEST(BackgroundLoopTest, StepErrorsAreLoggedAndRetriedWithABackoffThatSuccessResets) {
  core::MetricsRegistry metrics;
  BottomRandom random;
  StepLog steps;
  LogCapture log;
  auto settings = Settings();
  settings.error_backoff = {100ms, 5000ms};
  {
    BackgroundLoop loop(
        settings,
        [&](const StepContext& context) {
          const int step = steps.Record(context);
          if (step <= 3) throw std::runtime_error("boom " + std::to_string(step));
          if (step == 4) return Next::Again();
          if (step == 5) throw 42;
          return Next::SleepUpTo(kLongSleep);
        },
        metrics, random);
    loop.Start();
    ASSERT_TRUE(steps.WaitFor(6));
    loop.StopAndJoin();
  }

  EXPECT_EQ(random.ceilings(), (std::vector<std::uint64_t>{100, 200, 400, 100}));
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_errors_total"), 4);
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_steps_total"), 6);
  const std::string text = log.Text();
  EXPECT_NE(text.find("test loop: boom 1 (retrying in 0 ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("test loop: boom 3 (retrying in 0 ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("test loop: a step threw something other than a std::exception"),
            std::string::npos)
      << text;
}

TEST(BackgroundLoopTest, StopEndsAnErrorPauseThatWakeDoesNot) {
  core::MetricsRegistry metrics;
  TopRandom random;
  StepLog steps;
  LogCapture log;  // keeps the expected warning out of the test output
  auto settings = Settings();
  settings.error_backoff = {std::chrono::minutes(10), std::chrono::minutes(10)};
  BackgroundLoop loop(
      settings,
      [&](const StepContext& context) -> Next {
        steps.Record(context);
        throw std::runtime_error("down");
      },
      metrics, random);
  loop.Start();
  ASSERT_TRUE(
      WaitUntil([&] { return LoopCounter(metrics, "chopar_loop_errors_total") == 1; }, kPatience));

  loop.Wake();
  EXPECT_TRUE(loop.Stop(kPatience)) << "the 10-minute pause must end at Stop()";
  EXPECT_EQ(steps.Count(), 1) << "a wake-up does not cut an error pause short";
  EXPECT_EQ(loop.Sleeping(), 0);
}

TEST(BackgroundLoopTest, StopBeforeStartMeansStartDoesNothing) {
  core::MetricsRegistry metrics;
  StepLog steps;
  {
    BackgroundLoop loop(Settings(), steps.Recording(Next::Again()), metrics);
    EXPECT_TRUE(loop.Stop(kPatience));
    loop.Start();
    EXPECT_TRUE(loop.Stopping());
    EXPECT_FALSE(loop.Running());
  }
  EXPECT_EQ(steps.Count(), 0);
}

// Wakes::kOneThread: a Wake() ends one thread's sleep, the others sleep on
// (their step would find nothing the first one does not take); WakeAnother()
// ends another's, to share more work than one step takes.
TEST(BackgroundLoopTest, AOneThreadLoopWakesOneSleeperAndWakeAnotherOneMore) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoopSettings settings = Settings(3);
  settings.wakes = BackgroundLoopSettings::Wakes::kOneThread;
  BackgroundLoop loop(settings, steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(steps.WaitFor(3));
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 3; }, kPatience));

  // A thread that was woken counts as asleep again only after its step:
  // three asleep with four steps means exactly one stepped.
  loop.Wake();
  ASSERT_TRUE(steps.WaitFor(4));
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 3; }, kPatience));
  EXPECT_EQ(steps.Count(), 4);

  loop.WakeAnother();
  ASSERT_TRUE(steps.WaitFor(5));
  ASSERT_TRUE(WaitUntil([&] { return loop.Sleeping() == 3; }, kPatience));
  EXPECT_EQ(steps.Count(), 5);
  EXPECT_TRUE(loop.Stop(kPatience));
}

}  // namespace
}  // namespace chopar::db
