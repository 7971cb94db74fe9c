#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace chopar::channels::chat {

// Until when each webhook takes no more posts (its rate limit said so), for
// every delivery loop of the process. Bounded: past `capacity` webhooks the
// rests already over are forgotten, and if none is, the new rest is not
// kept (the service's 429 then says it again). Thread-safe.
class WebhookRests {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WebhookRests(std::size_t capacity = 10000) : capacity_(capacity) {}

  // When `webhook` may be posted to again (a time already past when it may
  // now).
  [[nodiscard]] Clock::time_point Until(std::string_view webhook) const;
  // `webhook` takes no posts before `until` (a later rest it has is kept).
  void Rest(std::string_view webhook, Clock::time_point until);

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Clock::time_point> until_;
};

// The Retry-After of a post given back while its rest lasts: the whole
// seconds from `now` until `until`, at least one.
std::chrono::seconds RestLeft(WebhookRests::Clock::time_point until,
                              WebhookRests::Clock::time_point now);

}  // namespace chopar::channels::chat
