#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/channel_kind.hpp"

namespace chopar::reports {

// What became of one channel's deliveries of a period's notifications.
struct DeliveryCounts {
  std::int64_t sent = 0;
  std::int64_t failed = 0;
  std::int64_t skipped = 0;
  std::int64_t pending = 0;  // still queued or sending when the report was made

  [[nodiscard]] std::int64_t Total() const { return sent + failed + skipped + pending; }
  friend bool operator==(const DeliveryCounts&, const DeliveryCounts&) = default;
};

// A name and how many times it occurred ("task.due", 800).
using NamedCount = std::pair<std::string, std::int64_t>;

// chopar's own statistics of one period (the builtin summary): the
// notifications created in it and what became of their deliveries.
struct SummaryStats {
  std::int64_t notifications = 0;
  core::PerChannel<DeliveryCounts> deliveries;
  std::vector<NamedCount> top_types;        // most frequent first, at most kTopCount
  std::vector<NamedCount> failure_reasons;  // last_error of failed deliveries, most frequent first
  // Seconds from a notification's creation to its delivery sent; nullopt
  // when nothing was sent.
  std::optional<double> latency_p50;
  std::optional<double> latency_p95;

  friend bool operator==(const SummaryStats&, const SummaryStats&) = default;
};

// How many types and failure reasons a summary lists.
inline constexpr int kTopCount = 5;

}  // namespace chopar::reports
