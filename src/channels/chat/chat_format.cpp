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

std::string CutCodePoints(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  }
  if (chars <= max_chars) return std::string(text);
  if (max_chars == 0) return {};
  // Keep max_chars - 1 code points and end with "…".
  std::size_t kept = 0;
  std::size_t end = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (kept == max_chars - 1) {
      end = i;
      break;
    }
    ++kept;
  }
  return std::string(text.substr(0, end)) + "…";
}

}  // namespace chopar::channels::chat
