#include "channels/chat/chat_format.hpp"

#include <charconv>
#include <stdexcept>

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

std::chrono::milliseconds ParseTimeoutSeconds(const std::string& value) {
  int seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || seconds < 1 || seconds > 60) {
    throw std::invalid_argument("timeout_seconds must be a whole number from 1 to 60, not \"" +
                                value + "\"");
  }
  return std::chrono::seconds(seconds);
}

}  // namespace chopar::channels::chat
