#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

namespace chopar::reports {

// Metric name → value ("orders" → 30). Ordered by name, so a report lists
// its lines in a stable order.
using Metrics = std::map<std::string, double>;

// How many past weeks the baseline of an anomaly check averages.
inline constexpr int kBaselineWeeks = 2;

// One metric that moved further from its baseline than the threshold.
struct Anomaly {
  std::string metric;
  double today = 0;
  double baseline = 0;  // never 0

  // (today - baseline) / baseline in percent, rounded to the nearest
  // integer (halves to even): 30 against 100 → -70.
  [[nodiscard]] int ChangePercent() const;

  friend bool operator==(const Anomaly&, const Anomaly&) = default;
};

// The detector: for each metric of `today` whose baseline is present and not
// zero, an anomaly when |today - baseline| / baseline > threshold. A metric
// without a baseline gets no verdict; nothing found → empty (silence means
// all is well). Results in metric name order. Pure.
std::vector<Anomaly> DetectAnomalies(const Metrics& today, const Metrics& baseline,
                                     double threshold);

// The baseline from a metric's history (values of the same weekday, newest
// first): the mean of the newest kBaselineWeeks values, or of all of them
// when there are fewer; 0 (no verdict) for an empty history. Pure.
double BaselineFromHistory(std::span<const double> newest_first);

}  // namespace chopar::reports
