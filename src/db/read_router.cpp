#include "db/read_router.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

namespace chopar::db {
namespace {

constexpr Query kPrimaryFlushLsn{"chopar.read_router.primary_lsn",
                                 "SELECT (pg_current_wal_flush_lsn() - '0/0')::bigint", Plan::kAny};
constexpr Query kPrimaryInsertLsn{"chopar.read_router.insert_lsn",
                                  "SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint",
                                  Plan::kAny};
// Not in recovery: every commit is there (NULL replay position).
constexpr Query kStandbyReplay{
    "chopar.read_router.replayed",
    "SELECT CASE WHEN pg_is_in_recovery() THEN (pg_last_wal_replay_lsn() - '0/0')::bigint END",
    Plan::kAny};
constexpr Query kWaitForReplay{"chopar.read_router.wait",
                               "SELECT chopar.wait_for_replay($1::pg_lsn, $2::integer)",
                               Plan::kAny};

constexpr Lsn kEverything = std::numeric_limits<Lsn>::max();
// Samples of the primary's position kept at most (a standby behind the
// oldest is at least that old behind): a day at 4 a second.
constexpr std::size_t kMaxSamples = 400'000;

}  // namespace

ReadRouter::ReadRouter(Pool& primary, ReadRouterSettings settings, core::MetricsRegistry& metrics)
    : primary_(primary),
      settings_(std::move(settings)),
      // One position, fetched after every waiting write committed, serves them all.
      insert_lsn_fetches_(
          1024,
          [this](const std::vector<char>& writes) {
            const auto lsn =
                static_cast<Lsn>(primary_.Acquire()->Exec(kPrimaryInsertLsn).Int(0, 0));
            return std::vector<Lsn>(writes.size(), lsn);
          },
          [](const std::exception_ptr&) { return false; }) {
  const std::string reads_help =
      "Reads routed by [database] read_urls, by where they ran (primary, standby_<n>)";
  primary_reads_ = &metrics.GetCounter("chopar_reads_total", reads_help, {{"target", "primary"}});
  const std::string fallback_help =
      "Reads sent to the primary although standbys are configured, by reason";
  auto fallback = [&](const char* reason) {
    return &metrics.GetCounter("chopar_read_fallbacks_total", fallback_help, {{"reason", reason}});
  };
  fallbacks_ = {fallback("lag"), fallback("down"), fallback("lsn_wait"), fallback("error")};
  for (std::size_t i = 0; i < settings_.standbys.size(); ++i) {
    auto standby = std::make_unique<Standby>();
    standby->pool = std::make_unique<Pool>(settings_.standbys[i]);
    const std::string number = std::to_string(i + 1);
    standby->reads =
        &metrics.GetCounter("chopar_reads_total", reads_help, {{"target", "standby_" + number}});
    standby->lag_seconds = &metrics.GetGauge(
        "chopar_read_standby_lag_seconds",
        "How far each standby's replay is behind the primary, at the last check (-1: unknown)",
        {{"standby", number}});
    standby->up_gauge = &metrics.GetGauge("chopar_read_standby_up",
                                          "1 when the standby answered the last check, else 0",
                                          {{"standby", number}});
    standby->lag_seconds->Set(-1);
    standbys_.push_back(std::move(standby));
  }
  CheckNow();
  checker_ = std::thread([this] { CheckLoop(); });
}

ReadRouter::~ReadRouter() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  checker_.join();
}

int ReadRouter::Choose() {
  const std::optional<Lsn> after = ReadAfterLsn();
  const std::size_t count = standbys_.size();
  const std::uint64_t start = next_.fetch_add(1, std::memory_order_relaxed);
  int well = -1;
  bool any_up = false;
  for (std::size_t k = 0; k < count; ++k) {
    const int i = static_cast<int>((start + k) % count);
    const Standby& standby = *standbys_[i];
    if (!standby.up.load()) continue;
    any_up = true;
    if (!standby.within_lag.load()) continue;
    // The first well one in turn, unless another has the caller's write.
    if (!after || standby.replayed.load() >= *after) return i;
    if (well < 0) well = i;
  }
  if (well < 0) {
    (any_up ? fallbacks_.lag : fallbacks_.down)->Inc();
    return -1;
  }
  if (WaitForReplay(well, *after)) return well;
  return -1;
}

bool ReadRouter::WaitForReplay(int index, Lsn lsn) {
  Standby& standby = *standbys_[index];
  if (settings_.wait_for_lsn.count() > 0) {
    try {
      auto conn = standby.pool->Acquire();
      const Result waited = conn->Exec(kWaitForReplay, FormatLsn(lsn),
                                       static_cast<std::int64_t>(settings_.wait_for_lsn.count()));
      if (waited.Bool(0, 0)) {
        // Replay only moves forward: what it reached, later reads need not wait for.
        Lsn known = standby.replayed.load();
        while (known < lsn && !standby.replayed.compare_exchange_weak(known, lsn)) {
        }
        return true;
      }
    } catch (const ConnectionError& e) {
      TakeOut(index, e.what());
      return false;
    } catch (const PoolTimeout& e) {
      TakeOut(index, e.what());
      return false;
    }
  }
  fallbacks_.lsn_wait->Inc();
  return false;
}

void ReadRouter::TakeOut(int index, const std::string& why) {
  Standby& standby = *standbys_[index];
  fallbacks_.error->Inc();
  if (standby.up.exchange(false)) {
    spdlog::warn(
        "standby {} (read_urls) failed a read, reading from the primary until it answers "
        "a check again: {}",
        index + 1, why);
  }
}

Lsn ReadRouter::PrimaryInsertLsn() { return insert_lsn_fetches_.Submit(0); }

std::optional<Lsn> ReadRouter::SamplePrimary() {
  try {
    if (!primary_check_ || primary_check_->IsBroken()) {
      primary_check_.reset();
      primary_check_.emplace(
          Connection::Open(primary_.conninfo(), primary_.session(), primary_.pooling()));
    }
    const auto lsn = static_cast<Lsn>(primary_check_->Exec(kPrimaryFlushLsn).Int(0, 0));
    samples_.emplace_back(std::chrono::steady_clock::now(), lsn);
    if (samples_.size() > kMaxSamples) samples_.pop_front();
    return lsn;
  } catch (const std::exception& e) {
    spdlog::debug("standby lag check: the primary did not answer: {}", e.what());
    primary_check_.reset();
    return std::nullopt;
  }
}

std::chrono::milliseconds ReadRouter::LagOf(Lsn replayed) const {
  // The oldest sample the standby has not replayed: it misses what the
  // primary had then.
  const auto missing = std::find_if(samples_.begin(), samples_.end(),
                                    [&](const auto& sample) { return sample.second > replayed; });
  if (missing == samples_.end()) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               missing->first);
}

void ReadRouter::CheckNow() {
  std::lock_guard lock(check_mutex_);
  const std::optional<Lsn> primary = SamplePrimary();
  Lsn slowest = kEverything;
  bool all_answered = primary.has_value();
  for (std::size_t i = 0; i < standbys_.size(); ++i) {
    Standby& standby = *standbys_[i];
    const PoolSettings& where = settings_.standbys[i];
    std::optional<Lsn> replayed;
    try {
      if (!standby.check || standby.check->IsBroken()) {
        standby.check.reset();
        standby.check.emplace(Connection::Open(where.conninfo, where.session, where.pooling));
      }
      const Result row = standby.check->Exec(kStandbyReplay);
      replayed = row.IsNull(0, 0) ? kEverything : static_cast<Lsn>(row.Int(0, 0));
    } catch (const std::exception& e) {
      standby.check.reset();
      if (standby.up.exchange(false)) {
        spdlog::warn("standby {} (read_urls) does not answer; reading from the primary: {}", i + 1,
                     e.what());
      }
      standby.up_gauge->Set(0);
      standby.lag_seconds->Set(-1);
      all_answered = false;
      continue;
    }
    Lsn known = standby.replayed.load();
    while (known < *replayed && !standby.replayed.compare_exchange_weak(known, *replayed)) {
    }
    slowest = std::min(slowest, *replayed);
    // Without the primary's position, the lag is not known: as it was.
    if (primary) {
      const auto lag = LagOf(*replayed);
      const bool within = lag <= settings_.max_lag;
      if (standby.within_lag.exchange(within) != within) {
        spdlog::info("standby {} (read_urls) is {} ms behind the primary (read_max_lag_ms {}): {}",
                     i + 1, lag.count(), settings_.max_lag.count(),
                     within ? "reading from it" : "reading from the primary instead");
      }
      standby.lag_seconds->Set(static_cast<double>(lag.count()) / 1000.0);
    }
    if (!standby.up.exchange(true)) {
      spdlog::info("standby {} (read_urls) answers", i + 1);
    }
    standby.up_gauge->Set(1);
  }
  // What every standby has replayed tells nothing any more; keep the newest.
  // Not while one is down: when it is back, its lag is measured from the
  // samples it missed.
  if (!all_answered) return;
  while (samples_.size() > 1 && samples_.front().second <= slowest) samples_.pop_front();
}

void ReadRouter::CheckLoop() {
  std::unique_lock lock(stop_mutex_);
  while (!stop_.wait_for(lock, settings_.check_interval, [this] { return stopping_; })) {
    lock.unlock();
    CheckNow();
    lock.lock();
  }
}

}  // namespace chopar::db
