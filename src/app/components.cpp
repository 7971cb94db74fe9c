#include "app/components.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <stdexcept>

namespace chopar::app {

Components::~Components() {
  StopAll(Clock::now());
  while (!entries_.empty()) entries_.pop_back();
}

void Components::AddSteps(std::string name, std::function<void()> start,
                          std::function<void(Clock::time_point deadline)> stop) {
  if (started_ != 0) throw std::logic_error("Components: a part added after StartAll()");
  entries_.push_back({std::move(name), std::move(start), std::move(stop), {}, nullptr});
}

void Components::AfterStart(std::function<void()> announce) {
  if (entries_.empty()) throw std::logic_error("Components::AfterStart before any part");
  entries_.back().announce = std::move(announce);
}

void Components::StartAll() {
  try {
    while (started_ < entries_.size()) {
      const Entry& entry = entries_[started_];
      entry.start();  // a part whose start throws counts as not started
      ++started_;
      spdlog::debug("started {}", entry.name);
      if (entry.announce) entry.announce();
    }
  } catch (...) {
    StopAll(Clock::now());
    throw;
  }
}

void Components::StopAll(Clock::time_point deadline) {
  for (; started_ > 0; --started_) {
    const Entry& entry = entries_[started_ - 1];
    const auto began = Clock::now();
    try {
      entry.stop(deadline);
    } catch (const std::exception& e) {
      spdlog::error("stopping {} failed: {}", entry.name, e.what());
    }
    spdlog::debug(
        "stopped {} in {} ms", entry.name,
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count());
  }
}

std::vector<std::string_view> Components::Names() const {
  std::vector<std::string_view> names;
  names.reserve(entries_.size());
  for (const Entry& entry : entries_) names.push_back(entry.name);
  return names;
}

}  // namespace chopar::app
