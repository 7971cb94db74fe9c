#include "http/inbox_listener.hpp"

#include <spdlog/spdlog.h>

#include <charconv>
#include <optional>

#include "db/connection.hpp"
#include "hub/notify_service.hpp"

namespace chopar::http {

InboxWake ParseInboxPayload(std::string_view payload) {
  InboxWake wake;
  while (!payload.empty()) {
    const auto comma = payload.find(',');
    std::string_view piece = payload.substr(0, comma);
    payload = comma == std::string_view::npos ? std::string_view() : payload.substr(comma + 1);
    while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    if (piece == "*") {
      wake.all = true;
      continue;
    }
    std::int64_t user_id = 0;
    const auto [ptr, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), user_id);
    if (ec == std::errc() && ptr == piece.data() + piece.size() && user_id > 0) {
      wake.user_ids.push_back(user_id);
    }
  }
  return wake;
}

InboxListener::InboxListener(std::string conninfo, StreamHub& hub, Options options)
    : conninfo_(std::move(conninfo)), hub_(hub), options_(options) {}

InboxListener::~InboxListener() { Stop(); }

void InboxListener::Start() {
  stopping_ = false;
  thread_ = std::thread([this] { Run(); });
}

void InboxListener::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool InboxListener::WaitBeforeRetry(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, delay, [this] { return stopping_.load(); });
}

void InboxListener::Run() {
  while (!stopping_) {
    std::optional<std::chrono::steady_clock::time_point> listening_since;
    try {
      auto conn = db::Connection::Open(conninfo_);
      conn.Listen(hub::kInboxChannel);
      listening_since = std::chrono::steady_clock::now();
      hub_.WakeAll();
      // Counted after the wake-up: a caller that sees the count knows every
      // stream registered before it has been woken.
      if (connections_.fetch_add(1) > 0) spdlog::info("inbox listener: reconnected");
      while (!stopping_) {
        for (const auto& note : conn.WaitForNotifications(options_.poll_interval)) {
          const auto wake = ParseInboxPayload(note.payload);
          if (wake.all) {
            hub_.WakeAll();
          } else if (!wake.user_ids.empty()) {
            hub_.WakeUsers(wake.user_ids);
          }
        }
        if (conn.IsBroken()) throw std::runtime_error("the LISTEN connection broke");
      }
    } catch (const std::exception& e) {
      spdlog::warn("inbox listener: {}; reconnecting", e.what());
      // A connection that had been listening for a while is retried at once
      // (streams wait for the reconnection); anything else backs off.
      const bool long_lived =
          listening_since &&
          std::chrono::steady_clock::now() - *listening_since > options_.retry_delay;
      if (!long_lived && !WaitBeforeRetry(options_.retry_delay)) return;
    }
  }
}

}  // namespace chopar::http
