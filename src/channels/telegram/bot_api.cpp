#include "channels/telegram/bot_api.hpp"

#include "core/json.hpp"
#include "core/text.hpp"

namespace chopar::channels::telegram {

std::string TelegramBotId(std::string_view bot_token) {
  const auto colon = bot_token.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 20) return "";
  const std::string_view id = bot_token.substr(0, colon);
  for (char c : id) {
    if (c < '0' || c > '9') return "";
  }
  return std::string(id);
}

BotApiReply ParseBotApiReply(const net::HttpResponse& response, core::TimePoint now) {
  BotApiReply reply;
  if (response.error != CURLE_OK) {
    reply.timed_out = response.error == CURLE_OPERATION_TIMEDOUT;
    reply.description = response.error_message.empty() ? "request failed" : response.error_message;
    return reply;
  }
  reply.error_code = static_cast<int>(response.status);
  if (const auto header = response.Header("retry-after"))
    reply.retry_after = net::ParseRetryAfter(*header, now);

  const auto body = core::ParseJsonOrDiscarded(response.body);
  if (!body.is_object() || !body.contains("ok") || !body["ok"].is_boolean()) {
    reply.description = "HTTP " + std::to_string(response.status) + " without a Bot API answer";
    return reply;
  }
  if (body["ok"].get<bool>()) {
    reply.ok = response.status >= 200 && response.status < 300;
    reply.error_code = 0;
    reply.result = body.value("result", nlohmann::json());
    return reply;
  }
  if (const auto it = body.find("error_code"); it != body.end() && it->is_number_integer()) {
    reply.error_code = it->get<int>();
  }
  if (const auto it = body.find("description"); it != body.end() && it->is_string()) {
    reply.description = it->get<std::string>();
  } else {
    reply.description = "HTTP " + std::to_string(response.status);
  }
  if (const auto params = body.find("parameters"); params != body.end() && params->is_object()) {
    if (const auto it = params->find("retry_after");
        it != params->end() && it->is_number_integer()) {
      reply.retry_after = std::chrono::seconds(std::max<std::int64_t>(0, it->get<std::int64_t>()));
    }
  }
  return reply;
}

TelegramBotApi::TelegramBotApi(const TelegramSettings& settings) : timeout_(settings.timeout) {
  method_base_ = std::string(core::WithoutTrailingSlashes(settings.api_base)) + "/bot" +
                 settings.bot_token + "/";
}

net::HttpRequest TelegramBotApi::SendMessage(
    std::int64_t chat_id, std::string_view html,
    std::chrono::steady_clock::time_point not_before) const {
  net::HttpRequest request = Post("sendMessage",
                                  {{"chat_id", chat_id},
                                   {"text", html},
                                   {"parse_mode", "HTML"},
                                   {"disable_web_page_preview", true}},
                                  timeout_);
  request.not_before = not_before;
  return request;
}

net::HttpRequest TelegramBotApi::GetUpdates(std::int64_t offset,
                                            std::chrono::seconds long_poll) const {
  nlohmann::json body = {{"timeout", long_poll.count()},
                         {"limit", 100},
                         {"allowed_updates", nlohmann::json::array({"message", "my_chat_member"})}};
  if (offset > 0) body["offset"] = offset;
  // The server holds the request for up to `long_poll`: leave room for the answer.
  net::HttpRequest request =
      Post("getUpdates", body,
           std::chrono::duration_cast<std::chrono::milliseconds>(long_poll) + timeout_);
  // 100 updates of up to 4096 characters each, with their metadata.
  request.max_response_bytes = 8 << 20;
  return request;
}

net::HttpRequest TelegramBotApi::Post(std::string_view method, const nlohmann::json& body,
                                      std::chrono::milliseconds timeout) const {
  net::HttpRequest request;
  request.method = "POST";
  request.url = method_base_ + std::string(method);
  request.headers = {"Content-Type: application/json", "Accept: application/json"};
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  request.timeout = timeout;
  return request;
}

}  // namespace chopar::channels::telegram
