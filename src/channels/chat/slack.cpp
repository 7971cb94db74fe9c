#include "channels/chat/slack.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include "channels/render.hpp"

namespace chopar::channels::chat {
namespace {

// Block Kit's limits, in characters: a header's text, a section's text, a
// button's label; the top-level text is kept as short as a section's.
constexpr std::size_t kMaxHeader = 150;
constexpr std::size_t kMaxSection = 3000;
constexpr std::size_t kMaxButton = 75;

// The answers that mean the webhook (or its workspace) is gone.
constexpr std::array<std::string_view, 6> kGoneErrors = {
    "no_service",    "channel_not_found",   "no_team",
    "team_disabled", "channel_is_archived", "invalid_token"};

// Slack answers errors as a short plain text ("channel_not_found").
std::string ErrorOf(const net::HttpResponse& response) {
  std::string text = CutCodePoints(response.body, 100);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

std::string SlackEscape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string SlackBody(const Message& message, std::string_view public_url) {
  nlohmann::json blocks = nlohmann::json::array();
  blocks.push_back(
      {{"type", "header"},
       {"text", {{"type", "plain_text"}, {"text", CutCodePoints(message.title, kMaxHeader)}}}});
  if (!message.body.empty()) {
    blocks.push_back(
        {{"type", "section"},
         {"text",
          {{"type", "mrkdwn"}, {"text", CutCodePoints(SlackEscape(message.body), kMaxSection)}}}});
  }
  if (const auto link = AbsoluteLink(message, public_url)) {
    const std::string label(WordsFor(message.locale).open);
    blocks.push_back(
        {{"type", "actions"},
         {"elements",
          nlohmann::json::array(
              {{{"type", "button"},
                {"text", {{"type", "plain_text"}, {"text", CutCodePoints(label, kMaxButton)}}},
                {"url", *link}}})}});
  }
  std::string text = SlackEscape(message.title);
  if (!message.body.empty()) text += "\n" + SlackEscape(message.body);
  const nlohmann::json body = {{"text", CutCodePoints(text, kMaxSection)}, {"blocks", blocks}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Outcome SlackOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now) {
  const std::string error = ErrorOf(response);
  if (response.status >= 200 && response.status < 300) return Outcome::Sent();
  std::string detail = "slack " + std::to_string(response.status);
  if (!error.empty()) detail += ": " + error;
  if (response.status == 429) return Outcome::Retry(detail, RetryAfterHeader(response, now));
  if (response.status >= 500) return Outcome::Retry(detail, RetryAfterHeader(response, now));
  for (const std::string_view gone : kGoneErrors) {
    if (error == gone) return Outcome::AddressGone(detail);
  }
  return Outcome::Permanent(detail);
}

const ChatFormat kSlackFormat{
    .provider = "slack",
    .body = SlackBody,
    .target = TheWebhookItself,
    .outcome = SlackOutcome,
    .rest = RestAfterA429,
};

}  // namespace chopar::channels::chat
