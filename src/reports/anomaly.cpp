#include "reports/anomaly.hpp"

#include <algorithm>
#include <cmath>

namespace chopar::reports {

int Anomaly::ChangePercent() const {
  // nearbyint rounds halves to even under the default rounding mode, as the
  // source document's round() does.
  return static_cast<int>(std::nearbyint((today - baseline) / baseline * 100));
}

std::vector<Anomaly> DetectAnomalies(const Metrics& today, const Metrics& baseline,
                                     double threshold) {
  std::vector<Anomaly> found;
  for (const auto& [name, value] : today) {
    const auto base = baseline.find(name);
    if (base == baseline.end() || base->second == 0) continue;
    if (std::abs(value - base->second) / std::abs(base->second) > threshold) {
      found.push_back({name, value, base->second});
    }
  }
  return found;
}

double BaselineFromHistory(std::span<const double> newest_first) {
  const std::size_t n = std::min<std::size_t>(newest_first.size(), kBaselineWeeks);
  if (n == 0) return 0;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += newest_first[i];
  return sum / static_cast<double>(n);
}

}  // namespace chopar::reports
