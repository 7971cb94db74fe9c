#include "channels/chat/chat_format.hpp"

namespace chopar::channels::chat {

std::optional<std::chrono::seconds> RetryAfterHeader(const net::HttpResponse& response,
                                                     std::chrono::system_clock::time_point now) {
  const auto header = response.Header("retry-after");
  if (!header) return std::nullopt;
  return net::ParseRetryAfter(*header, now);
}

std::optional<std::chrono::milliseconds> RestAfterA429(const net::HttpResponse& response,
                                                       std::chrono::system_clock::time_point now) {
  if (response.status != 429) return std::nullopt;
  return RetryAfterHeader(response, now).value_or(std::chrono::seconds(1));
}

std::string TheWebhookItself(std::string_view webhook) { return std::string(webhook); }

}  // namespace chopar::channels::chat
