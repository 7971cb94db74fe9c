#include "core/coalescer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <latch>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace chopar::core {
namespace {

// An item whose batch fails for a reason not of any one item.
constexpr int kConnectionLost = -1000;

// Splits a failed batch unless the failure was the connection's.
bool ItemsFailure(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::system_error&) {
    return false;
  } catch (...) {
    return true;
  }
}

// Runs doubled items and records each batch; the first batch is held until
// `hold_until_waiting` other calls wait behind it, so the next batch's
// size is known rather than left to the scheduler.
class Recorder {
 public:
  explicit Recorder(std::size_t hold_until_waiting = 0) : hold_(hold_until_waiting) {}

  Coalescer<int, int>::Run Run() {
    return [this](const std::vector<int>& items) {
      bool first = false;
      {
        std::lock_guard lock(mutex_);
        batches_.push_back(items);
        first = batches_.size() == 1;
      }
      if (first && hold_ > 0) {
        while (coalescer_->Waiting() < hold_) std::this_thread::yield();
      }
      for (int item : items) {
        if (item == kConnectionLost) throw std::system_error(ECONNRESET, std::generic_category());
        if (item < 0) throw std::runtime_error("refused " + std::to_string(item));
      }
      std::vector<int> doubled;
      for (int item : items) doubled.push_back(item * 2);
      return doubled;
    };
  }

  void Watch(const Coalescer<int, int>& coalescer) { coalescer_ = &coalescer; }
  std::vector<std::vector<int>> Batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }

 private:
  std::size_t hold_;
  const Coalescer<int, int>* coalescer_ = nullptr;
  std::mutex mutex_;
  std::vector<std::vector<int>> batches_;
};

// Submits `first` and, once its batch runs, each of `rest` from a thread of
// its own; returns the results in input order: -1 for a call that threw an
// item's failure, -2 for one that threw the connection's.
std::vector<int> SubmitAll(Coalescer<int, int>& coalescer, Recorder& recorder, int first,
                           const std::vector<int>& rest) {
  std::vector<int> results(rest.size() + 1, 0);
  std::vector<std::jthread> threads;
  auto call = [&](std::size_t slot, int item) {
    try {
      results[slot] = coalescer.Submit(item);
    } catch (const std::system_error&) {
      results[slot] = -2;
    } catch (const std::runtime_error&) {
      results[slot] = -1;
    }
  };
  threads.emplace_back(call, 0, first);
  while (recorder.Batches().empty()) std::this_thread::yield();  // `first` runs
  for (std::size_t i = 0; i < rest.size(); ++i) threads.emplace_back(call, i + 1, rest[i]);
  threads.clear();
  return results;
}

TEST(CoalescerTest, ACallAloneRunsAtOnceInABatchOfItsOwn) {
  Recorder recorder;
  Coalescer<int, int> coalescer(64, recorder.Run(), ItemsFailure);
  EXPECT_EQ(coalescer.Submit(21), 42);
  EXPECT_EQ(coalescer.Submit(4), 8);
  EXPECT_EQ(recorder.Batches(), (std::vector<std::vector<int>>{{21}, {4}}));
}

TEST(CoalescerTest, CallsArrivingDuringABatchGoTogetherInTheNext) {
  Recorder recorder(/*hold_until_waiting=*/8);
  std::vector<std::size_t> observed;
  Coalescer<int, int> coalescer(64, recorder.Run(), ItemsFailure,
                                [&](std::size_t size) { observed.push_back(size); });
  recorder.Watch(coalescer);
  const auto results = SubmitAll(coalescer, recorder, 1, {2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(results, (std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16, 18}));
  const auto batches = recorder.Batches();
  ASSERT_EQ(batches.size(), 2u) << "the first call alone, then the eight that waited behind it";
  EXPECT_EQ(batches[0], std::vector<int>{1});
  EXPECT_EQ(batches[1].size(), 8u);
  EXPECT_EQ(observed, (std::vector<std::size_t>{1, 8}));
}

TEST(CoalescerTest, ABatchNeverExceedsItsLimit) {
  Recorder recorder(/*hold_until_waiting=*/7);
  Coalescer<int, int> coalescer(3, recorder.Run(), ItemsFailure);
  recorder.Watch(coalescer);
  const auto results = SubmitAll(coalescer, recorder, 1, {2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(results, (std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16}));
  const auto batches = recorder.Batches();
  ASSERT_EQ(batches.size(), 4u) << "1, then 7 waiting in batches of at most 3";
  std::size_t total = 0;
  for (const auto& batch : batches) {
    EXPECT_LE(batch.size(), 3u);
    total += batch.size();
  }
  EXPECT_EQ(total, 8u);
}

TEST(CoalescerTest, AFailingBatchIsRunAgainItemByItemSoOnlyTheBadOneFails) {
  Recorder recorder(/*hold_until_waiting=*/3);
  Coalescer<int, int> coalescer(64, recorder.Run(), ItemsFailure);
  recorder.Watch(coalescer);
  const auto results = SubmitAll(coalescer, recorder, 1, {2, -3, 4});
  EXPECT_EQ(results, (std::vector<int>{2, 4, -1, 8}));
  const auto batches = recorder.Batches();
  ASSERT_EQ(batches.size(), 5u) << "1; the three together (thrown); each of the three alone";
  EXPECT_EQ(batches[1].size(), 3u);
  for (std::size_t i = 2; i < 5; ++i) EXPECT_EQ(batches[i].size(), 1u);
}

TEST(CoalescerTest, ABatchThatFailsForNoItemsReasonFailsEveryItemOnce) {
  Recorder recorder(/*hold_until_waiting=*/3);
  Coalescer<int, int> coalescer(64, recorder.Run(), ItemsFailure);
  recorder.Watch(coalescer);
  const auto results = SubmitAll(coalescer, recorder, 1, {2, kConnectionLost, 4});
  EXPECT_EQ(results, (std::vector<int>{2, -2, -2, -2}));
  EXPECT_EQ(recorder.Batches().size(), 2u) << "no item is run again alone";
}

TEST(CoalescerTest, ManyThreadsEachGetTheirOwnResult) {
  std::atomic<int> runs = 0;
  Coalescer<int, int> coalescer(
      16,
      [&](const std::vector<int>& items) {
        ++runs;
        std::vector<int> out;
        for (int item : items) out.push_back(item + 1000);
        return out;
      },
      ItemsFailure);
  constexpr int kThreads = 8, kCalls = 500;
  std::latch start(kThreads);
  std::atomic<int> wrong = 0;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        for (int i = 0; i < kCalls; ++i) {
          const int item = t * kCalls + i;
          if (coalescer.Submit(item) != item + 1000) ++wrong;
        }
      });
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_LE(runs, kThreads * kCalls);
  EXPECT_EQ(coalescer.Waiting(), 0u);
}

}  // namespace
}  // namespace chopar::core
