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

std::string InboxStream::Opening() const { return UnreadCountEvent(last_count_); }

InboxStream::Fetched InboxStream::Fetch(const std::string& request_id) const {
  const core::LogScope scope("request_id", request_id);
  Fetched result;
  try {
    result.items = inbox_.ListSince(user_id_, last_id_, kBatch);
    result.unread_count = inbox_.UnreadCount(user_id_, hub::InboxService::ReadFrom::kPrimary);
    result.ok = true;
  } catch (const std::exception& e) {
    spdlog::warn("inbox stream of user {}: {}", user_id_, e.what());
  }
  return result;
}

std::string InboxStream::Advance(const Fetched& fetched, bool& more) {
  std::string text;
  for (const auto& item : fetched.items) {
    text += FormatSseEvent("notification", DumpJson(NotificationView(item)), item.id);
    last_id_ = std::max(last_id_, item.id);
  }
  if (fetched.unread_count != last_count_) {
    last_count_ = fetched.unread_count;
    text += UnreadCountEvent(last_count_);
  }
  more = fetched.items.size() >= static_cast<std::size_t>(kBatch);
  return text;
}

}  // namespace chopar::http
