#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace chopar::core {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A monotonically increasing value. Thread-safe, lock-free.
class Counter {
 public:
  void Inc(double by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  [[nodiscard]] double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down. Thread-safe, lock-free.
class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
  [[nodiscard]] double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Cumulative buckets, Prometheus style. Thread-safe, lock-free.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double value);
  [[nodiscard]] const std::vector<double>& bounds() const { return bounds_; }
  [[nodiscard]] std::vector<std::uint64_t> BucketCounts() const;  // cumulative, last = +Inf
  [[nodiscard]] double Sum() const { return sum_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t Count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
  std::atomic<double> sum_{0};
  std::atomic<std::uint64_t> count_{0};
};

// Seconds: from 1 ms to about 1 hour.
std::vector<double> LatencyBuckets();

// Named metrics and their Prometheus text rendering. Metrics live as long as
// the registry; the references returned stay valid. Thread-safe.
//
// There is no global registry: the process creates one (app::RunService) and
// hands it to every component, which resolves its metrics (name and label
// set) once, at construction, and keeps the references. Tests give each
// component a registry of their own and read exactly what it counted.
class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  Counter& GetCounter(const std::string& name, const std::string& help, const Labels& labels = {});
  Gauge& GetGauge(const std::string& name, const std::string& help, const Labels& labels = {});
  Histogram& GetHistogram(const std::string& name, const std::string& help, const Labels& labels = {},
                          std::vector<double> bounds = LatencyBuckets());

  // A function run before each rendering, to refresh gauges that are read
  // from elsewhere (queue depth from the database, say). It must not throw.
  void AddCollector(std::function<void()> collector);

  // Prometheus text exposition format 0.0.4.
  std::string Render();

 private:
  enum class Kind { kCounter, kGauge, kHistogram };
  struct Family {
    Kind kind;
    std::string help;
    std::map<std::string, std::unique_ptr<Counter>> counters;  // key: rendered labels
    std::map<std::string, std::unique_ptr<Gauge>> gauges;
    std::map<std::string, std::unique_ptr<Histogram>> histograms;
  };
  Family& FamilyFor(const std::string& name, Kind kind, const std::string& help);

  std::mutex mutex_;
  std::map<std::string, Family> families_;
  std::vector<std::function<void()>> collectors_;
};

}  // namespace chopar::core
