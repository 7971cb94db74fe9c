#include "http/inbox_stream.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/log_context.hpp"
#include "http/message.hpp"
#include "http/notification_view.hpp"

namespace chopar::http {
namespace {

std::string UnreadCountEvent(std::int64_t count) {
  return FormatSseEvent("unread_count", DumpJson({{"count", count}}));
}

std::string CountsEvent(std::int64_t unseen, std::int64_t unread) {
  return FormatSseEvent("counts", DumpJson({{"unseen", unseen}, {"unread", unread}}));
}

// The ids an `unsnoozed` change lists: the items it brings back.
std::vector<std::int64_t> ReturningIds(const nlohmann::json& state) {
  std::vector<std::int64_t> ids;
  if (state.value("change", "") != "unsnoozed") return ids;
  const auto listed = state.find("ids");
  if (listed == state.end() || !listed->is_array()) return ids;
  for (const auto& id : *listed) {
    if (id.is_number_integer()) ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

}  // namespace

std::string FormatSseEvent(std::string_view name, const std::string& data,
                           std::optional<std::int64_t> id) {
  std::string text = "event: ";
  text += name;
  text += '\n';
  if (id) text += "id: " + std::to_string(*id) + "\n";
  text += "data: ";
  text += data;
  text += "\n\n";
  return text;
}

std::string InboxStream::Opening() const {
  return UnreadCountEvent(last_count_) + CountsEvent(last_unseen_, last_count_);
}

InboxStream::Fetched InboxStream::Fetch(const std::string& request_id,
                                        std::vector<nlohmann::json> states) const {
  const core::LogScope scope("request_id", request_id);
  Fetched result;
  try {
    result.items = inbox_.ListUnsent(user_id_, Unsent(std::chrono::system_clock::now()), kBatch);
    for (auto& state : states) {
      const auto ids = ReturningIds(state);
      if (ids.empty()) continue;
      nlohmann::json returned = nlohmann::json::array();
      for (const auto& item : inbox_.NotificationsByIds(user_id_, ids)) {
        if (!tenant_ || item.tenant == tenant_) returned.push_back(NotificationView(item));
      }
      state["notifications"] = std::move(returned);
    }
    result.states = std::move(states);
    const auto counts = inbox_.CountUnseenAndUnread(user_id_, {.tenant = tenant_},
                                                    hub::InboxService::ReadFrom::kPrimary);
    result.unread_count = counts.unread;
    result.unseen_count = counts.unseen;
    result.ok = true;
  } catch (const std::exception& e) {
    spdlog::warn("inbox stream of user {}: {}", user_id_, e.what());
  }
  return result;
}

hub::InboxService::Unsent InboxStream::Unsent(core::TimePoint now) const {
  hub::InboxService::Unsent unsent;
  unsent.after_id = last_id_;
  core::TimePoint since = std::max(opened_, now - kLateWindow);
  // Full: what was forgotten is older than the oldest kept, or as old
  // (notifications fired together share their created_at).
  if (remembered_.size() >= kMaxRemembered)
    since = std::max(since, remembered_.front().created_at + std::chrono::microseconds(1));
  unsent.late_since = since;
  for (const Sent& sent : remembered_) {
    if (sent.created_at >= since) unsent.sent.push_back(sent.id);
  }
  return unsent;
}

std::string InboxStream::Advance(const Fetched& fetched, bool& more) {
  std::string text;
  for (const auto& item : fetched.items) {
    last_id_ = std::max(last_id_, item.id);
    // Another tenant's: passed over, remembered as sent all the same.
    if (!tenant_ || item.tenant == tenant_) {
      text += FormatSseEvent("notification", DumpJson(NotificationView(item)), last_id_);
    }
    // Kept in created_at order: a late one goes where it belongs.
    const auto at =
        std::upper_bound(remembered_.begin(), remembered_.end(), item.created_at,
                         [](core::TimePoint t, const Sent& sent) { return t < sent.created_at; });
    remembered_.insert(at, Sent{item.id, item.created_at});
  }
  const core::TimePoint horizon = std::chrono::system_clock::now() - kLateWindow;
  while (!remembered_.empty() &&
         (remembered_.front().created_at < horizon || remembered_.size() > kMaxRemembered)) {
    remembered_.pop_front();
  }
  for (const auto& state : fetched.states) text += FormatSseEvent("state", DumpJson(state));
  const bool counts_changed =
      fetched.unread_count != last_count_ || fetched.unseen_count != last_unseen_;
  if (fetched.unread_count != last_count_) {
    last_count_ = fetched.unread_count;
    text += UnreadCountEvent(last_count_);
  }
  if (counts_changed) {
    last_unseen_ = fetched.unseen_count;
    text += CountsEvent(last_unseen_, last_count_);
  }
  more = fetched.items.size() >= static_cast<std::size_t>(kBatch);
  return text;
}

}  // namespace chopar::http
