// How fast the scheduler can compute next_fire_at: 100,000 (pattern, zone)
// pairs per iteration, the size of a large bulk PUT /v1/schedules.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "schedule/cron.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/time_zone.hpp"

namespace {

using chopar::schedule::CronPattern;

const std::vector<std::string> kPatterns{
    "5 18 * * *",           "30 2 * * *",       "0 0 * * *",    "*/15 * * * *", "0 * * * *",
    "30 1 * * 0",           "15 2,3 * * *",     "0 0 1 * *",    "0 9 * * 1-5",  "0 8,20 * * *",
    "*/5 9-17 * * MON-FRI", "0 0 1 * MON",      "45 23 * * 6",  "0 0 29 2 *",   "@weekly",
    "0 12 1,15 * *",        "10 7 * JAN,JUL *", "*/30 * * * *", "0 6 */2 * *",  "@monthly"};

const std::vector<std::string> kZones{"Europe/Berlin",    "America/New_York", "Australia/Lord_Howe",
                                      "Pacific/Chatham",  "Asia/Kathmandu",   "America/St_Johns",
                                      "America/Santiago", "America/Havana",   "Africa/Cairo",
                                      "Europe/Dublin",    "Asia/Tashkent",    "UTC",
                                      "Asia/Tokyo",       "Europe/London",    "America/Los_Angeles",
                                      "Australia/Sydney", "Asia/Kolkata",     "America/Sao_Paulo"};

struct Job {
  const CronPattern* pattern;
  const date::time_zone* zone;
  chopar::core::TimePoint after;
};

std::vector<Job> MakeJobs(const std::vector<CronPattern>& patterns, std::size_t count) {
  std::vector<const date::time_zone*> zones;
  zones.reserve(kZones.size());
  for (const auto& name : kZones) zones.push_back(chopar::schedule::FindTimeZone(name));
  std::mt19937 rng(42);
  const chopar::core::TimePoint start{date::sys_days(date::year(2026) / 1 / 1)};
  std::uniform_int_distribution<long> minute_of_two_years(0, 2L * 366 * 24 * 60);
  std::vector<Job> jobs;
  jobs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    jobs.push_back({&patterns[rng() % patterns.size()], zones[rng() % zones.size()],
                    start + std::chrono::minutes(minute_of_two_years(rng)) +
                        std::chrono::seconds(rng() % 60)});
  }
  return jobs;
}

std::vector<CronPattern> ParseAll() {
  std::vector<CronPattern> patterns;
  patterns.reserve(kPatterns.size());
  for (const auto& text : kPatterns) patterns.push_back(chopar::schedule::ParseCron(text));
  return patterns;
}

void NextFireTime100kPairs(benchmark::State& state) {
  const std::vector<CronPattern> patterns = ParseAll();
  const std::vector<Job> jobs = MakeJobs(patterns, 100'000);
  for (auto _ : state) {
    for (const Job& job : jobs) {
      benchmark::DoNotOptimize(chopar::schedule::NextFireTime(*job.pattern, job.zone, job.after));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(jobs.size()));
}
BENCHMARK(NextFireTime100kPairs)->Unit(benchmark::kMillisecond);

// A preview of the maximum size: 1,000 instants of a busy pattern across DST.
void Preview1000(benchmark::State& state) {
  const CronPattern pattern = chopar::schedule::ParseCron("*/15 * * * *");
  const date::time_zone* zone = chopar::schedule::FindTimeZone("Europe/Berlin");
  const chopar::core::TimePoint after{date::sys_days(date::year(2026) / 10 / 24)};
  for (auto _ : state) {
    benchmark::DoNotOptimize(chopar::schedule::NextFireTimes(pattern, zone, after, 1000));
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(Preview1000)->Unit(benchmark::kMicrosecond);

void ParseCronText(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(chopar::schedule::ParseCron(kPatterns[i++ % kPatterns.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(ParseCronText);

}  // namespace

BENCHMARK_MAIN();
