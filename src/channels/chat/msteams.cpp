#include "channels/chat/msteams.hpp"

#include <nlohmann/json.hpp>

#include "channels/render.hpp"
#include "core/text.hpp"

namespace chopar::channels::chat {
namespace {

// Teams refuses a post over about 28 KB; these keep a card well inside it.
constexpr std::size_t kMaxTitle = 2000;
constexpr std::size_t kMaxBody = 20000;

// The answer's text for last_error: short, on one line.
std::string Excerpt(std::string_view body) {
  std::string text = CutCodePoints(body, 200);
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string TeamsBody(const Message& message, std::string_view public_url) {
  nlohmann::json blocks = nlohmann::json::array();
  blocks.push_back({{"type", "TextBlock"},
                    {"text", CutCodePoints(message.title, kMaxTitle)},
                    {"weight", "Bolder"},
                    {"size", "Medium"},
                    {"wrap", true}});
  if (!message.body.empty()) {
    blocks.push_back(
        {{"type", "TextBlock"}, {"text", CutCodePoints(message.body, kMaxBody)}, {"wrap", true}});
  }
  nlohmann::json card = {
      {"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
      {"type", "AdaptiveCard"},
      {"version", "1.4"},
      {"body", blocks},
  };
  if (const auto link = AbsoluteLink(message, public_url)) {
    card["actions"] = nlohmann::json::array({{{"type", "Action.OpenUrl"},
                                              {"title", std::string(WordsFor(message.locale).open)},
                                              {"url", *link}}});
  }
  const nlohmann::json body = {
      {"type", "message"},
      {"attachments",
       nlohmann::json::array({{{"contentType", "application/vnd.microsoft.card.adaptive"},
                               {"contentUrl", nullptr},
                               {"content", card}}})},
  };
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Outcome TeamsOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now) {
  std::string detail = "msteams " + std::to_string(response.status);
  if (!response.body.empty()) detail += ": " + Excerpt(response.body);
  if (response.status >= 200 && response.status < 300) {
    // The Office 365 connector answers 200 with a text saying the post was
    // not delivered when Teams itself refused it.
    if (core::ContainsIgnoringCase(response.body, "delivery failed")) {
      if (response.body.find("429") != std::string::npos) return Outcome::Retry(detail);
      return Outcome::Permanent(detail);
    }
    return Outcome::Sent();
  }
  if (response.status == 429) return Outcome::Retry(detail, RetryAfterHeader(response, now));
  if (response.status == 404 || response.status == 410) return Outcome::AddressGone(detail);
  if (response.status >= 500) return Outcome::Retry(detail, RetryAfterHeader(response, now));
  return Outcome::Permanent(detail);
}

const ChatFormat kTeamsFormat{
    .provider = "msteams",
    .body = TeamsBody,
    .target = TheWebhookItself,
    .outcome = TeamsOutcome,
    .rest = RestAfterA429,
};

}  // namespace chopar::channels::chat
