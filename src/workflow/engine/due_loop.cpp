#include "workflow/engine/due_loop.hpp"

#include <algorithm>

#include "core/time_format.hpp"

namespace chopar::workflow::engine {
namespace {

db::BackgroundLoopSettings LoopSettings(const db::Pool& pool, std::string name,
                                        const char* channel) {
  db::BackgroundLoopSettings loop;
  loop.name = std::move(name);
  loop.threads = 1;
  loop.listen = db::ListenOn{pool.listen_conninfo(), channel};
  return loop;
}

}  // namespace

DueRowLoop::DueRowLoop(const db::Pool& pool, std::string name, const char* channel,
                       const core::Clock& clock, std::chrono::milliseconds max_sleep, Steps steps,
                       core::MetricsRegistry& metrics)
    : clock_(clock),
      max_sleep_(max_sleep),
      steps_(std::move(steps)),
      loop_(
          LoopSettings(pool, std::move(name), channel),
          [this](const db::StepContext&) { return Step(); }, metrics) {}

int DueRowLoop::RunOnce() {
  int handled = 0;
  bool full = true;
  while (full && !loop_.Stopping()) handled += steps_.batch(full);
  return handled;
}

db::Next DueRowLoop::Step() {
  if (RunOnce() > 0) return db::Next::Again();
  const auto next = steps_.next_due();
  if (!next) return db::Next::SleepUpTo(max_sleep_);
  const auto until = std::chrono::ceil<std::chrono::milliseconds>(*next - clock_.Now());
  return db::Next::SleepUpTo(std::clamp(until, std::chrono::milliseconds(0), max_sleep_));
}

}  // namespace chopar::workflow::engine
