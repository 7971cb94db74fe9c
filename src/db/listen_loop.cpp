#include "db/listen_loop.hpp"

#include <spdlog/spdlog.h>

#include "core/backoff.hpp"
#include "db/connection.hpp"

namespace chopar::db {
namespace {
constexpr std::chrono::milliseconds kListenTick{100};  // how soon Stop() is noticed
const core::BackoffPolicy kReconnectBackoff{std::chrono::milliseconds(100), std::chrono::milliseconds(5000)};
}  // namespace

void RunListenLoop(const std::string& conninfo, const std::string& channel, const std::string& what,
                   const std::atomic<bool>& stopping, const std::function<void()>& wake,
                   const std::function<void(std::chrono::milliseconds)>& pause) {
  int failures = 0;
  while (!stopping) {
    try {
      auto conn = Connection::Open(conninfo);
      conn.Listen(channel);
      wake();
      failures = 0;
      while (!stopping) {
        if (!conn.WaitForNotifications(kListenTick).empty()) wake();
      }
    } catch (const std::exception& e) {
      ++failures;
      const auto delay = core::BackoffDelay(kReconnectBackoff, failures, core::ThreadLocalRandom::Instance());
      spdlog::warn("{}: {} (reconnecting in {} ms)", what, e.what(), delay.count());
      pause(delay);
    }
  }
}

}  // namespace chopar::db
