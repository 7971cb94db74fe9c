#include "channels/chat/discord.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "channels/render.hpp"

namespace chopar::channels::chat {
namespace {

using std::chrono::milliseconds;

// Discord's own limits of an embed, in characters.
constexpr std::size_t kMaxTitle = 256;
constexpr std::size_t kMaxDescription = 4096;

// A JSON answer's member as text ("Unknown Webhook"), or "" when absent.
std::string Member(const nlohmann::json& answer, const char* name) {
  if (!answer.is_object()) return "";
  const auto it = answer.find(name);
  if (it == answer.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

nlohmann::json ParseAnswer(const net::HttpResponse& response) {
  return nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
}

// A number of seconds as Discord writes it ("1.5", 0.25) in milliseconds.
std::optional<milliseconds> SecondsValue(const nlohmann::json& value) {
  double seconds = 0;
  if (value.is_number()) {
    seconds = value.get<double>();
  } else if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  // A day at most: an absurd value must not park a webhook for ever.
  return milliseconds(static_cast<std::int64_t>(std::ceil(std::min(seconds, 86400.0) * 1000)));
}

// How long a 429 asks to wait: the body's retry_after, else Retry-After.
std::optional<milliseconds> RetryAfterOf(const net::HttpResponse& response,
                                         std::chrono::system_clock::time_point now) {
  const nlohmann::json answer = ParseAnswer(response);
  if (answer.is_object() && answer.contains("retry_after")) {
    if (auto wait = SecondsValue(answer["retry_after"])) return wait;
  }
  if (auto wait = RetryAfterHeader(response, now)) return *wait;
  return std::nullopt;
}

std::optional<milliseconds> DiscordRest(const net::HttpResponse& response,
                                        std::chrono::system_clock::time_point now) {
  if (response.status == 429) return RetryAfterOf(response, now).value_or(milliseconds(1000));
  if (response.Header("x-ratelimit-remaining") == "0") {
    if (const auto reset = response.Header("x-ratelimit-reset-after")) {
      return SecondsValue(nlohmann::json(*reset));
    }
  }
  return std::nullopt;
}

}  // namespace

std::string DiscordBody(const Message& message, std::string_view public_url) {
  nlohmann::json embed = {{"title", CutCodePoints(message.title, kMaxTitle)}};
  if (!message.body.empty()) embed["description"] = CutCodePoints(message.body, kMaxDescription);
  if (const auto link = AbsoluteLink(message, public_url)) embed["url"] = *link;
  const nlohmann::json body = {
      {"embeds", nlohmann::json::array({embed})},
      {"allowed_mentions", {{"parse", nlohmann::json::array()}}},
  };
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string DiscordTarget(std::string_view webhook) {
  return std::string(webhook) +
         (webhook.find('?') == std::string_view::npos ? "?wait=true" : "&wait=true");
}

Outcome DiscordOutcome(const net::HttpResponse& response,
                       std::chrono::system_clock::time_point now) {
  const nlohmann::json answer = ParseAnswer(response);
  if (response.status >= 200 && response.status < 300) {
    const std::string id = Member(answer, "id");
    return Outcome::Sent(id.empty() ? std::nullopt : std::optional<std::string>(id));
  }
  std::string detail = "discord " + std::to_string(response.status);
  if (const std::string message = Member(answer, "message"); !message.empty()) {
    detail += ": " + message;
  }
  if (const std::string code = Member(answer, "code"); !code.empty()) {
    detail += " (code " + code + ")";
  }
  if (response.status == 429) {
    const auto wait = RetryAfterOf(response, now);
    return Outcome::Retry(
        detail,
        wait ? std::optional(std::chrono::ceil<std::chrono::seconds>(*wait)) : std::nullopt);
  }
  if (response.status == 401 || response.status == 404) return Outcome::AddressGone(detail);
  if (response.status >= 500) return Outcome::Retry(detail, RetryAfterHeader(response, now));
  return Outcome::Permanent(detail);
}

const ChatFormat kDiscordFormat{
    .provider = "discord",
    .body = DiscordBody,
    .target = DiscordTarget,
    .outcome = DiscordOutcome,
    .rest = DiscordRest,
};

}  // namespace chopar::channels::chat
