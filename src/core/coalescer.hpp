#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace chopar::core {

// Group commit for calls that cost the same for one item as for several (a
// statement, a round trip, a commit): calls that arrive while a batch is
// running wait and go together in the next one, run by one of the callers.
//
// One batch runs at a time. A call that finds none running runs its own item
// at once, alone, so a quiet service sees no added latency; under load the
// batches grow with the rate, and the fixed cost per item falls just when it
// matters. A caller waits for the batch in progress and its own (and more
// only when over max_batch calls wait ahead of it).
//
// `run` gets the items in arrival order and returns one result per item, in
// the same order; it is called on a submitting thread without the
// coalescer's lock, one call at a time. When it throws for a batch of
// several, `split_when` says whether the failure may be one item's (a value
// the database refused): then each item of the batch is run again alone, so
// one item's failure is never another's (`run` must leave nothing behind
// when it throws, as a failed statement or a rolled-back transaction does).
// Otherwise (the connection is gone) every item gets the exception at once,
// rather than each waiting for its own failure. Thread-safe.
template <typename Item, typename Result>
class Coalescer {
 public:
  using Run = std::function<std::vector<Result>(const std::vector<Item>&)>;
  // Whether a batch's failure may be due to one of its items.
  using SplitWhen = std::function<bool(const std::exception_ptr&)>;
  // Observes the size of each batch that ran (metrics); may be empty.
  using Observe = std::function<void(std::size_t)>;

  Coalescer(std::size_t max_batch, Run run, SplitWhen split_when, Observe observe = {})
      : max_batch_(max_batch == 0 ? 1 : max_batch),
        run_(std::move(run)),
        split_when_(std::move(split_when)),
        observe_(std::move(observe)) {}

  Coalescer(const Coalescer&) = delete;
  Coalescer& operator=(const Coalescer&) = delete;

  // How many calls wait for a batch to take them (tests, metrics).
  std::size_t Waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
  }

  // Runs `item` in a batch and returns its result, or throws what running it
  // alone threw. Blocks until then.
  Result Submit(Item item) {
    Waiter me{.item = std::move(item), .result = std::nullopt, .error = nullptr, .done = false};
    std::unique_lock lock(mutex_);
    waiting_.push_back(&me);
    while (!me.done) {
      if (running_) {
        changed_.wait(lock);
        continue;
      }
      // Nobody runs a batch: this caller runs the oldest waiting items, its
      // own among them unless max_batch older ones are waiting.
      running_ = true;
      const std::size_t taken = std::min(waiting_.size(), max_batch_);
      std::vector<Waiter*> batch(waiting_.begin(), waiting_.begin() + static_cast<long>(taken));
      waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<long>(taken));
      lock.unlock();
      RunBatch(batch);
      lock.lock();
      running_ = false;
      for (Waiter* waiter : batch) waiter->done = true;
      changed_.notify_all();
    }
    if (me.error) std::rethrow_exception(me.error);
    return std::move(*me.result);
  }

 private:
  struct Waiter {
    Item item;
    std::optional<Result> result;
    std::exception_ptr error;
    bool done = false;
  };

  void RunBatch(const std::vector<Waiter*>& batch) {
    if (observe_) observe_(batch.size());
    std::vector<Item> items;
    items.reserve(batch.size());
    for (Waiter* waiter : batch) items.push_back(std::move(waiter->item));
    try {
      std::vector<Result> results = run_(items);
      if (results.size() != items.size())
        throw std::logic_error("Coalescer: the batch returned a result count unlike its items'");
      for (std::size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(results[i]);
      return;
    } catch (...) {
      const std::exception_ptr error = std::current_exception();
      if (batch.size() == 1 || !split_when_(error)) {
        for (Waiter* waiter : batch) waiter->error = error;
        return;
      }
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      try {
        std::vector<Result> alone = run_({items[i]});
        if (alone.size() != 1)
          throw std::logic_error("Coalescer: the batch returned a result count unlike its items'");
        batch[i]->result = std::move(alone.front());
      } catch (...) {
        batch[i]->error = std::current_exception();
      }
    }
  }

  const std::size_t max_batch_;
  const Run run_;
  const SplitWhen split_when_;
  const Observe observe_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Waiter*> waiting_;  // submitted, not yet in a batch; oldest first
  bool running_ = false;
};

}  // namespace chopar::core
