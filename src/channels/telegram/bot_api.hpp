#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "channels/telegram/settings.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::telegram {

// One Bot API answer, read the way Telegram documents it: {"ok": true,
// "result": …} or {"ok": false, "error_code": 403, "description": "Forbidden:
// bot was blocked by the user", "parameters": {"retry_after": 5}}.
struct BotApiReply {
  bool ok = false;
  // Telegram's error_code, else the HTTP status; 0 when no HTTP answer came.
  int error_code = 0;
  // Telegram's description, or what went wrong on the way (never the URL,
  // which holds the bot token).
  std::string description;
  // parameters.retry_after, else a Retry-After header.
  std::optional<std::chrono::seconds> retry_after;
  bool timed_out = false;
  nlohmann::json result;  // when ok
};

// Never throws: a body that is not Bot API JSON gives ok=false with the HTTP
// status as error_code. `now` is when the response came: a Retry-After
// header holding an HTTP date counts from it.
BotApiReply ParseBotApiReply(const net::HttpResponse& response, core::TimePoint now);

// Builds Bot API requests (POST <api_base>/bot<token>/<method>, JSON bodies).
// Immutable after construction; thread-safe.
class TelegramBotApi {
 public:
  explicit TelegramBotApi(const TelegramSettings& settings);

  // sendMessage with parse_mode HTML and link previews off, started no
  // earlier than `not_before`.
  [[nodiscard]] net::HttpRequest SendMessage(
      std::int64_t chat_id, std::string_view html,
      std::chrono::steady_clock::time_point not_before = {}) const;
  // getUpdates from `offset` (0: the earliest unconfirmed update), waiting up
  // to `long_poll` for one; only the update kinds chopar handles.
  [[nodiscard]] net::HttpRequest GetUpdates(std::int64_t offset,
                                            std::chrono::seconds long_poll) const;

 private:
  [[nodiscard]] net::HttpRequest Post(std::string_view method, const nlohmann::json& body,
                                      std::chrono::milliseconds timeout) const;

  std::string method_base_;  // "<api_base>/bot<token>/"
  std::chrono::milliseconds timeout_;
};

}  // namespace chopar::channels::telegram
