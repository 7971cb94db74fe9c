#include "channels/telegram/poller.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "channels/telegram/queries.hpp"
#include "db/errors.hpp"

namespace chopar::channels::telegram {
namespace {

constexpr std::chrono::milliseconds kFirstBackoff{1000};
constexpr std::chrono::milliseconds kMaxBackoff{30000};

db::BackgroundLoopSettings LoopSettings() {
  db::BackgroundLoopSettings loop;
  loop.name = "telegram poller";
  loop.error_backoff = {kFirstBackoff, kMaxBackoff};
  return loop;
}

std::string ValidBotId(const TelegramSettings& settings) {
  std::string id = TelegramBotId(settings.bot_token);
  if (id.empty())
    throw std::invalid_argument("telegram bot_token must look like <bot id>:<secret>");
  return id;
}

// Whether an update's statement failed because of what the update holds
// (SQLSTATE class 22, data exception; class 23, integrity constraint
// violation): it would fail the same way every time, so the update is
// skipped rather than stalling the bot. Any other error is the database's,
// not the update's — transient (a lost connection, a serialization failure
// or deadlock, a lock or statement timeout, the server shutting down) or
// operational — and the update must not be lost to it.
bool FailsTheSameEveryTime(const db::DbError& error) {
  return error.sqlstate().starts_with("22") || error.sqlstate().starts_with("23");
}

}  // namespace

TelegramPoller::TelegramPoller(TelegramUpdates& updates, db::Pool& pool, net::HttpClient& http,
                               core::MetricsRegistry& metrics)
    : updates_(updates),
      pool_(pool),
      http_(http),
      bot_id_(ValidBotId(updates.channel().settings())),
      failure_backoff_(kFirstBackoff),
      loop_(LoopSettings(), [this](const db::StepContext&) { return Step(); }, metrics) {}

TelegramPoller::~TelegramPoller() { Stop(); }

TelegramPoller::RunResult TelegramPoller::RunOnce() {
  std::int64_t offset = 0;
  {
    auto conn = pool_.Acquire();
    conn->Exec(queries::kTelegramEnsurePollState, bot_id_);
    offset = conn->Exec(queries::kTelegramPollOffset, bot_id_).Int(0, 0);
  }

  const TelegramChannel& channel = updates_.channel();
  const net::HttpResponse response =
      http_.Perform(channel.api().GetUpdates(offset, channel.settings().long_poll));
  const BotApiReply reply = ParseBotApiReply(response, channel.clock().Now());
  RunResult result;
  if (!reply.ok || !reply.result.is_array()) {
    result.failed = true;
    result.retry_after = reply.retry_after;
    result.error =
        reply.ok ? "getUpdates answered without an array"
                 : "getUpdates: " + std::to_string(reply.error_code) + " " + reply.description;
    return result;
  }
  result.received = reply.result.size();
  if (reply.result.empty()) return result;

  std::int64_t next_offset = offset;
  std::vector<TelegramText> replies;
  auto tx = pool_.Begin("telegram_poll");
  if (tx.Exec(queries::kTelegramLockPollState, bot_id_).Int(0, 0) != offset) {
    // Another poller applied this batch (or a later one) meanwhile.
    return result;
  }
  for (const nlohmann::json& update : reply.result) {
    const auto id = update.is_object() ? update.find("update_id") : update.end();
    if (!update.is_object() || id == update.end() || !id->is_number_integer()) continue;
    const std::int64_t update_id = id->get<std::int64_t>();
    if (update_id < offset) continue;  // already confirmed: Telegram should not send it
    next_offset = std::max(next_offset, update_id + 1);
    tx.ExecText("SAVEPOINT telegram_update");
    try {
      TelegramUpdateResult applied = updates_.Apply(tx, update);
      tx.ExecText("RELEASE SAVEPOINT telegram_update");
      if (applied.reply) replies.push_back(std::move(*applied.reply));
      ++result.applied;
    } catch (const db::DbError& e) {
      if (!FailsTheSameEveryTime(e)) {
        // The transaction rolls back: no offset is stored, and the same
        // updates are polled again after the loop's backoff.
        spdlog::warn("telegram: update {} not applied ({}); polled again", update_id, e.what());
        throw;
      }
      tx.ExecText("ROLLBACK TO SAVEPOINT telegram_update");
      spdlog::error("telegram: update {} skipped: {}", update_id, e.what());
    }
  }
  tx.Exec(queries::kTelegramSavePollOffset, bot_id_, next_offset);
  tx.Commit();
  updates_.SendReplies(replies);
  return result;
}

void TelegramPoller::Start() { loop_.Start(); }

void TelegramPoller::Stop() { loop_.StopAndJoin(); }

db::Next TelegramPoller::Step() {
  const RunResult result = RunOnce();
  if (result.failed) {
    spdlog::warn("telegram: {}", result.error);
    const std::chrono::milliseconds wait =
        result.retry_after ? std::chrono::milliseconds(*result.retry_after) : failure_backoff_;
    failure_backoff_ = std::min(failure_backoff_ * 2, kMaxBackoff);
    return db::Next::SleepUpTo(wait);
  }
  failure_backoff_ = kFirstBackoff;
  // Short polling (long_poll = 0) finding nothing: do not hammer the Bot API.
  if (result.received == 0 && updates_.channel().settings().long_poll.count() == 0) {
    return db::Next::SleepUpTo(kFirstBackoff);
  }
  return db::Next::Again();
}

}  // namespace chopar::channels::telegram
