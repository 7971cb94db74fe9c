#include "core/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace chopar::core {
namespace {

std::string RenderLabels(const Labels& labels, const std::string& extra = "") {
  if (labels.empty() && extra.empty()) return "";
  std::string out = "{";
  for (const auto& [key, value] : labels) {
    if (out.size() > 1) out += ',';
    out += key + "=\"";
    for (char c : value) {
      if (c == '"' || c == '\\') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    out += '"';
  }
  if (!extra.empty()) {
    if (out.size() > 1) out += ',';
    out += extra;
  }
  return out + "}";
}

// Appends `extra` (le="…") to an already rendered label set.
std::string WithExtra(const std::string& rendered, const std::string& extra) {
  if (rendered.empty()) return "{" + extra + "}";
  return rendered.substr(0, rendered.size() - 1) + "," + extra + "}";
}

std::string Number(double value) { return fmt::format("{}", value); }

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  std::sort(bounds_.begin(), bounds_.end());
}

void Histogram::Observe(double value) {
  const auto index = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::uint64_t> Histogram::BucketCounts() const {
  std::vector<std::uint64_t> out(bounds_.size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    out[i] = running;
  }
  return out;
}

std::vector<double> LatencyBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600};
}

MetricsRegistry::Family& MetricsRegistry::FamilyFor(const std::string& name, Kind kind,
                                                    const std::string& help) {
  auto [it, inserted] = families_.try_emplace(name);
  if (inserted) {
    it->second.kind = kind;
    it->second.help = help;
  } else if (it->second.kind != kind) {
    throw std::logic_error("metric " + name + " registered with two different types");
  }
  return it->second;
}

Counter& MetricsRegistry::GetCounter(const std::string& name, const std::string& help,
                                     const Labels& labels) {
  std::lock_guard lock(mutex_);
  auto& slot = FamilyFor(name, Kind::kCounter, help).counters[RenderLabels(labels)];
  if (!slot) slot = std::make_unique<Counter>();
  return *slot;
}

Gauge& MetricsRegistry::GetGauge(const std::string& name, const std::string& help,
                                 const Labels& labels) {
  std::lock_guard lock(mutex_);
  auto& slot = FamilyFor(name, Kind::kGauge, help).gauges[RenderLabels(labels)];
  if (!slot) slot = std::make_unique<Gauge>();
  return *slot;
}

Histogram& MetricsRegistry::GetHistogram(const std::string& name, const std::string& help,
                                         const Labels& labels, std::vector<double> bounds) {
  std::lock_guard lock(mutex_);
  auto& slot = FamilyFor(name, Kind::kHistogram, help).histograms[RenderLabels(labels)];
  if (!slot) slot = std::make_unique<Histogram>(std::move(bounds));
  return *slot;
}

void MetricsRegistry::AddCollector(std::function<void()> collector) {
  std::lock_guard lock(mutex_);
  collectors_.push_back(std::move(collector));
}

std::string MetricsRegistry::Render() {
  std::vector<std::function<void()>> collectors;
  {
    std::lock_guard lock(mutex_);
    collectors = collectors_;
  }
  for (auto& collect : collectors) collect();

  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, family] : families_) {
    const char* type = family.kind == Kind::kCounter ? "counter"
                       : family.kind == Kind::kGauge ? "gauge"
                                                     : "histogram";
    out += "# HELP " + name + " " + family.help + "\n# TYPE " + name + " " + type + "\n";
    for (const auto& [labels, counter] : family.counters) out += name + labels + " " + Number(counter->Value()) + "\n";
    for (const auto& [labels, gauge] : family.gauges) out += name + labels + " " + Number(gauge->Value()) + "\n";
    for (const auto& [labels, histogram] : family.histograms) {
      const auto counts = histogram->BucketCounts();
      for (std::size_t i = 0; i < histogram->bounds().size(); ++i) {
        out += name + "_bucket" + WithExtra(labels, "le=\"" + Number(histogram->bounds()[i]) + "\"") +
               " " + std::to_string(counts[i]) + "\n";
      }
      out += name + "_bucket" + WithExtra(labels, "le=\"+Inf\"") + " " + std::to_string(counts.back()) + "\n";
      out += name + "_sum" + labels + " " + Number(histogram->Sum()) + "\n";
      out += name + "_count" + labels + " " + std::to_string(histogram->Count()) + "\n";
    }
  }
  return out;
}

}  // namespace chopar::core
