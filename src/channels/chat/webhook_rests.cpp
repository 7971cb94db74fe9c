#include "channels/chat/webhook_rests.hpp"

#include <algorithm>

namespace chopar::channels::chat {

WebhookRests::Clock::time_point WebhookRests::Until(std::string_view webhook) const {
  std::lock_guard lock(mutex_);
  const auto it = until_.find(std::string(webhook));
  return it == until_.end() ? Clock::time_point{} : it->second;
}

void WebhookRests::Rest(std::string_view webhook, Clock::time_point until) {
  std::lock_guard lock(mutex_);
  if (until_.size() >= capacity_ && !until_.contains(std::string(webhook))) {
    const auto now = Clock::now();
    std::erase_if(until_, [now](const auto& rest) { return rest.second <= now; });
    if (until_.size() >= capacity_) return;
  }
  auto& kept = until_[std::string(webhook)];
  kept = std::max(kept, until);
}

std::chrono::seconds RestLeft(WebhookRests::Clock::time_point until,
                              WebhookRests::Clock::time_point now) {
  return std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(until - now));
}

}  // namespace chopar::channels::chat
