#include "channels/chat/slack_api.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "channels/chat/chat_format.hpp"
#include "channels/chat/slack.hpp"

namespace chopar::channels::chat {
namespace {

// A conversation's address cannot be spoofed into another workspace.
bool IsSlackId(std::string_view id, std::string_view first_letters) {
  return id.size() >= 9 && id.size() <= 24 && first_letters.find(id[0]) != std::string_view::npos &&
         std::all_of(id.begin(), id.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); });
}

// The errors that mean this conversation no longer takes the bot's posts —
// token_revoked and account_inactive too: the workspace removed the app (or
// was deleted), so each of its addresses goes as its delivery fails.
constexpr std::array<std::string_view, 9> kGoneErrors = {
    "channel_not_found", "user_not_found", "is_archived",   "account_inactive", "token_revoked",
    "user_disabled",     "not_in_channel", "cannot_dm_bot", "team_not_found"};
// The errors that mean chopar's credentials for the workspace are wrong.
constexpr std::array<std::string_view, 3> kInstallErrors = {
    "invalid_auth", "team_access_not_granted", "not_authed"};
// Slack's own transient failures.
constexpr std::array<std::string_view, 5> kTransientErrors = {
    "ratelimited", "fatal_error", "internal_error", "service_unavailable", "request_timeout"};

template <std::size_t N>
bool OneOf(const std::array<std::string_view, N>& list, std::string_view error) {
  return std::find(list.begin(), list.end(), error) != list.end();
}

nlohmann::json Answer(const net::HttpResponse& response) {
  return nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
}

std::string Text(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return "";
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::optional<SlackConversation> ParseSlackConversation(std::string_view address) {
  const auto slash = address.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view team = address.substr(0, slash);
  const std::string_view conversation = address.substr(slash + 1);
  if (!IsSlackId(team, "TE") || !IsSlackId(conversation, "UWCGD")) return std::nullopt;
  return SlackConversation{std::string(team), std::string(conversation)};
}

std::string SlackPostMessageBody(std::string_view conversation_id, const Message& message,
                                 std::string_view public_url) {
  nlohmann::json body = nlohmann::json::parse(SlackBody(message, public_url));
  body["channel"] = conversation_id;
  body["unfurl_links"] = false;
  body["unfurl_media"] = false;
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Outcome SlackPostMessageOutcome(const net::HttpResponse& response,
                                std::chrono::system_clock::time_point now) {
  const nlohmann::json answer = Answer(response);
  const std::string error = Text(answer, "error");
  const std::string detail =
      "slack " + std::to_string(response.status) + (error.empty() ? "" : ": " + error);
  const auto wait = RetryAfterHeader(response, now);
  if (response.status == 429 || OneOf(kTransientErrors, error) || response.status >= 500) {
    return Outcome::Retry(detail, wait);
  }
  if (response.status >= 200 && response.status < 300 && answer.is_object() &&
      answer.value("ok", false)) {
    const std::string ts = Text(answer, "ts");
    return Outcome::Sent(ts.empty() ? std::nullopt : std::optional<std::string>(ts));
  }
  if (OneOf(kGoneErrors, error)) return Outcome::AddressGone(detail);
  if (OneOf(kInstallErrors, error)) {
    return Outcome::Permanent(detail + " (the workspace's bot token is not accepted)");
  }
  return Outcome::Permanent(detail.empty() ? "slack: not ok" : detail);
}

SlackLookup ParseSlackLookupByEmail(const net::HttpResponse& response) {
  const nlohmann::json answer = Answer(response);
  if (response.status == 200 && answer.is_object() && answer.value("ok", false)) {
    const std::string id = answer.contains("user") ? Text(answer["user"], "id") : "";
    if (!id.empty()) return {id, ""};
  }
  const std::string error = Text(answer, "error");
  return {std::nullopt, error.empty() ? "HTTP " + std::to_string(response.status) : error};
}

SlackInstallResult ParseSlackOAuthAccess(const net::HttpResponse& response) {
  const nlohmann::json answer = Answer(response);
  if (response.status == 200 && answer.is_object() && answer.value("ok", false)) {
    SlackInstall install;
    install.bot_token = Text(answer, "access_token");
    install.bot_user_id = Text(answer, "bot_user_id");
    if (answer.contains("team")) {
      install.team_id = Text(answer["team"], "id");
      install.team_name = Text(answer["team"], "name");
    }
    if (install.bot_token.starts_with("xoxb-") && !install.team_id.empty()) {
      return {std::move(install), ""};
    }
    return {std::nullopt, "the answer has no bot token or no team"};
  }
  const std::string error = Text(answer, "error");
  return {std::nullopt, error.empty() ? "HTTP " + std::to_string(response.status) : error};
}

}  // namespace chopar::channels::chat
