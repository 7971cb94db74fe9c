#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "channels/telegram/updates.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::telegram {

// Receives the bot's updates by long polling (getUpdates) when no webhook is
// used ([channels.telegram] updates = "polling").
//
// The offset lives in chopar.telegram_poll_state and advances in the same
// transaction as the effects of the updates it confirms, after getUpdates
// has returned and before any reply is sent: a crash before that commit
// gets the same updates again (Telegram keeps them until a later offset
// confirms them), a crash after it does not replay them. Two pollers on one
// bot (two processes) do not apply a batch twice: the transaction applies
// only if the stored offset is still the one it polled with.
//
// One db::BackgroundLoop thread ("telegram poller") between Start() and
// Stop(); RunOnce() is its step, for tests to call directly. A failed
// getUpdates waits Telegram's retry_after, or a backoff doubling from 1 s to
// 30 s; a database error is retried by the loop with the same backoff.
// `updates`, `pool`, `http` and `metrics` must outlive it.
class TelegramPoller {
 public:
  // Throws std::invalid_argument when the bot token has no numeric bot id.
  TelegramPoller(TelegramUpdates& updates, db::Pool& pool, net::HttpClient& http,
                 core::MetricsRegistry& metrics);
  ~TelegramPoller();
  TelegramPoller(const TelegramPoller&) = delete;
  TelegramPoller& operator=(const TelegramPoller&) = delete;

  struct RunResult {
    std::size_t received = 0;  // updates in the getUpdates answer
    std::size_t applied = 0;   // of those, applied now (not by another poller)
    bool failed = false;       // getUpdates failed: the loop waits, then tries again
    std::optional<std::chrono::seconds> retry_after;  // Telegram's wait, when it said
    std::string error;
  };
  // One getUpdates call (waiting up to long_poll for updates) from the stored
  // offset, then one transaction for the effects and the new offset, then
  // the replies. Database errors throw (nothing applied, no offset stored;
  // the same updates come again next time), whether they strike between
  // updates or in one: a transient error (serialization failure, deadlock,
  // lock or statement timeout, lost connection, shutdown) or any other that
  // is not the update's fault never skips an update. Only an update whose
  // own data makes its statements fail (SQLSTATE class 22 or 23: it would
  // fail the same way every time) is skipped and logged, so one bad update
  // cannot stall the bot.
  RunResult RunOnce();

  // Starts the loop thread (no-op if running). Stop() lets the current
  // getUpdates return (at most long_poll plus the request timeout), applies
  // what it brought and joins; also called by the destructor.
  void Start();
  void Stop();

 private:
  // RunOnce(), then what the loop does next.
  db::Next Step();

  TelegramUpdates& updates_;
  db::Pool& pool_;
  net::HttpClient& http_;
  const std::string bot_id_;
  // Pause after the next failed getUpdates; only the loop's thread uses it.
  std::chrono::milliseconds failure_backoff_;
  // Declared last: built after, and destroyed before, everything its step uses.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::channels::telegram
