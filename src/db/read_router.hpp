#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/coalescer.hpp"
#include "core/metrics.hpp"
#include "db/errors.hpp"
#include "db/lsn.hpp"
#include "db/pool.hpp"

namespace chopar::db {

// Where ReadRouter sends reads and how long it waits for a standby.
struct ReadRouterSettings {
  std::vector<PoolSettings> standbys;  // [database] read_urls (read_url first), in order
  // A read carrying an LSN (ReadYourWritesScope) waits this long at most
  // for a standby to replay it, then goes to the primary; 0: no wait.
  std::chrono::milliseconds wait_for_lsn{50};
  // A standby further behind the primary than this is not read from.
  std::chrono::milliseconds max_lag{1000};
  // How often the lag is measured (in the background, never per request).
  std::chrono::milliseconds check_interval{250};
};

// Spreads read-only queries over hot standbys ([database] read_urls,
// docs/configuration.md "Reads from standbys"), each with a pool of its own,
// and sends them to the primary when no standby will do:
//  - a background thread measures every check_interval how far each
//    standby's replay is behind the primary: it samples the primary's
//    flushed WAL position with the time, and a standby that has not
//    replayed a position sampled at time t is at least now - t behind (so
//    an idle primary does not make a standby look late). A standby that
//    does not answer is down; one whose lag passes max_lag is lagging;
//    neither is read from until a later check finds it well again. A
//    server that is not in recovery (a read_url that is a primary, or a
//    role of it) has every commit: lag 0.
//  - a read goes round-robin to the standbys that are well; one carrying
//    the LSN of its caller's last write (ReadYourWritesScope) goes to one
//    known to have replayed it, else waits for it on one
//    (chopar.wait_for_replay, one round trip, at most wait_for_lsn), else
//    goes to the primary;
//  - a read that fails on a standby for the connection (the standby went
//    down between two checks) or a recovery conflict is run again on the
//    primary, and the standby is taken out until the next check.
// Metrics: chopar_reads_total{target}, chopar_read_fallbacks_total{reason},
// chopar_read_standby_lag_seconds{standby}, chopar_read_standby_up{standby}.
// Thread-safe.
class ReadRouter {
 public:
  // Starts the lag checks (the first one before returning). `primary` and
  // `metrics` must outlive the router.
  ReadRouter(Pool& primary, ReadRouterSettings settings, core::MetricsRegistry& metrics);
  ~ReadRouter();
  ReadRouter(const ReadRouter&) = delete;
  ReadRouter& operator=(const ReadRouter&) = delete;

  // Runs `read(pool)` (read-only: a standby refuses writes) on the pool
  // chosen as above; again on the primary when it fails on a standby for
  // the connection. Any other exception is the caller's.
  template <typename Fn>
  std::invoke_result_t<Fn&, Pool&> Read(Fn read) {
    const int standby = Choose();
    if (standby >= 0) {
      try {
        auto result = read(*standbys_[standby]->pool);
        standbys_[standby]->reads->Inc();
        return result;
      } catch (const ConnectionError& e) {
        TakeOut(standby, e.what());
      } catch (const PoolTimeout& e) {
        TakeOut(standby, e.what());
      } catch (const SerializationFailure&) {
        // A recovery conflict cancelled the read: the standby is well.
        fallbacks_.error->Inc();
      }
    }
    primary_reads_->Inc();
    return read(primary_);
  }

  // The primary's WAL insert position, fetched after the call began: the
  // LSN of a write that committed outside a db::Transaction (which fetches
  // its own). Calls that arrive while a fetch runs share the next one
  // (core::Coalescer): under load, one round trip serves many writes.
  Lsn PrimaryInsertLsn();
  // Measures every standby's lag now (what the background thread does).
  void CheckNow();
  [[nodiscard]] std::size_t standby_count() const { return standbys_.size(); }

 private:
  struct Standby {
    std::unique_ptr<Pool> pool;
    std::optional<Connection> check;  // the lag check's own connection
    std::atomic<bool> up{false};
    std::atomic<bool> within_lag{false};
    std::atomic<Lsn> replayed{0};  // at least this is replayed there
    core::Counter* reads = nullptr;
    core::Gauge* lag_seconds = nullptr;
    core::Gauge* up_gauge = nullptr;
  };
  struct Fallbacks {
    core::Counter* lag = nullptr;       // every standby up is lagging
    core::Counter* down = nullptr;      // no standby answers
    core::Counter* lsn_wait = nullptr;  // none had replayed the caller's write in time
    core::Counter* error = nullptr;     // the read failed on the standby
  };

  // The standby a read goes to now (-1: the primary), counting a fallback.
  int Choose();
  // Whether standby `index` has replayed `lsn`, waiting up to wait_for_lsn.
  bool WaitForReplay(int index, Lsn lsn);
  void TakeOut(int index, const std::string& why);
  void CheckLoop();
  // The primary's flushed position, sampled with the time (none: no answer).
  std::optional<Lsn> SamplePrimary();
  // How far behind a standby that replayed `replayed` is (from the samples).
  std::chrono::milliseconds LagOf(Lsn replayed) const;

  Pool& primary_;
  ReadRouterSettings settings_;
  std::vector<std::unique_ptr<Standby>> standbys_;
  core::Counter* primary_reads_ = nullptr;
  Fallbacks fallbacks_;
  std::atomic<std::uint64_t> next_{0};  // round-robin
  core::Coalescer<char, Lsn> insert_lsn_fetches_;

  std::mutex check_mutex_;  // one check at a time; guards samples_ and the check connections
  std::optional<Connection> primary_check_;
  std::deque<std::pair<std::chrono::steady_clock::time_point, Lsn>> samples_;

  std::mutex stop_mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread checker_;
};

// `read(pool)` where `router` sends it, or on `primary` without a router
// (no standbys configured).
template <typename Fn>
std::invoke_result_t<Fn&, Pool&> ReadOn(ReadRouter* router, Pool& primary, Fn read) {
  return router != nullptr ? router->Read(std::move(read)) : read(primary);
}

}  // namespace chopar::db
