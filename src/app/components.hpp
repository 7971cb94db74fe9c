#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chopar::app {

// The running parts of one process (the delivery worker, the scheduler, the
// HTTP server, …), in the order they start: each starts after the parts it
// relies on and stops before them, so StopAll() goes in reverse, and the
// list destroys them in reverse too. A part is anything with Start() and
// Stop(); one whose stop can be bounded (the delivery worker's drain) has
// Stop(std::chrono::milliseconds) and is given the time left before the
// process's stop deadline. Used from one thread.
class Components {
 public:
  using Clock = std::chrono::steady_clock;

  Components() = default;
  ~Components();  // StopAll(now) if started, then destroys the parts in reverse
  Components(const Components&) = delete;
  Components& operator=(const Components&) = delete;

  // Constructs a part owned by the list, started after those added before.
  template <typename Part, typename... Args>
  Part& Emplace(std::string name, Args&&... args) {
    auto owned = std::make_shared<Part>(std::forward<Args>(args)...);
    Part& part = *owned;
    Add(std::move(name), part);
    entries_.back().owner = std::move(owned);
    return part;
  }

  // A part owned elsewhere, which must outlive the list.
  template <typename Part>
  void Add(std::string name, Part& part) {
    AddSteps(
        std::move(name), [&part] { part.Start(); },
        [&part](Clock::time_point deadline) { StopPart(part, deadline); });
  }

  // A part given as its two steps.
  void AddSteps(std::string name, std::function<void()> start,
                std::function<void(Clock::time_point deadline)> stop);

  // Runs after the last part added has started (to say where it listens).
  void AfterStart(std::function<void()> announce);

  // Starts every part in order. If one throws, those already started are
  // stopped, in reverse, at once, and the exception is rethrown.
  void StartAll();

  // Stops the started parts in reverse order; a part that throws is logged
  // and the rest still stop. Idempotent.
  void StopAll(Clock::time_point deadline);

  // The parts' names in start order.
  [[nodiscard]] std::vector<std::string_view> Names() const;

 private:
  struct Entry {
    std::string name;
    std::function<void()> start;
    std::function<void(Clock::time_point)> stop;
    std::function<void()> announce;
    std::shared_ptr<void> owner;  // null for a part owned elsewhere
  };

  template <typename Part>
  static void StopPart(Part& part, Clock::time_point deadline) {
    if constexpr (requires(std::chrono::milliseconds left) { part.Stop(left); }) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      part.Stop(std::max(left, std::chrono::milliseconds::zero()));
    } else {
      part.Stop();
    }
  }

  std::vector<Entry> entries_;
  std::size_t started_ = 0;  // entries_[0, started_) are running
};

}  // namespace chopar::app
