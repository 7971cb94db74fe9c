#include "channels/chat/slack_channel.hpp"

#include <map>

#include "channels/chat/slack.hpp"
#include "channels/chat/slack_api.hpp"
#include "channels/outcome_unknown.hpp"
#include "db/errors.hpp"

namespace chopar::channels::chat {
namespace {

using std::chrono::steady_clock;

// Whether Slack said the workspace posts too fast (429, or an ok:false
// "ratelimited").
bool RateLimited(const net::HttpResponse& response, const Outcome& outcome) {
  return response.status == 429 ||
         (outcome.kind == OutcomeKind::kRetry && outcome.detail.ends_with(": ratelimited"));
}

}  // namespace

SlackChannel::SlackChannel(ChatWebhookSettings settings,
                           std::optional<SlackWorkspaceAccess> workspaces, net::HttpClient& http)
    : settings_(settings),
      webhooks_(kSlackFormat, settings, http),
      workspaces_(std::move(workspaces)),
      http_(http) {}

std::vector<Outcome> SlackChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<Message> to_webhooks;
  std::vector<std::size_t> webhook_index;
  std::vector<std::size_t> workspace_index;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].address && ParseSlackConversation(*messages[i].address)) {
      workspace_index.push_back(i);
    } else {
      to_webhooks.push_back(messages[i]);
      webhook_index.push_back(i);
    }
  }
  if (!to_webhooks.empty()) {
    std::vector<Outcome> sent = webhooks_.Send(to_webhooks);
    for (std::size_t j = 0; j < sent.size(); ++j) outcomes[webhook_index[j]] = std::move(sent[j]);
  }
  if (!workspace_index.empty()) SendToWorkspaces(messages, workspace_index, outcomes);
  return outcomes;
}

void SlackChannel::SendToWorkspaces(std::span<const Message> messages,
                                    std::span<const std::size_t> indices,
                                    std::vector<Outcome>& outcomes) {
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> message_of;  // index into `messages` of each request
  std::vector<std::string> team_of;
  // Each workspace's token, read once a batch (nullopt: not installed).
  std::map<std::string, std::optional<std::string>, std::less<>> tokens;
  const auto now = steady_clock::now();
  for (const std::size_t i : indices) {
    const Message& m = messages[i];
    const SlackConversation conversation = *ParseSlackConversation(*m.address);
    if (!workspaces_) {
      outcomes[i] = Outcome::Permanent(
          "slack: the address is a workspace's conversation, and [channels.slack] client_id is "
          "not set");
      continue;
    }
    auto known = tokens.find(conversation.team_id);
    try {
      if (known == tokens.end()) {
        known = tokens.emplace(conversation.team_id, workspaces_->bot_token(conversation.team_id))
                    .first;
      }
    } catch (const SlackTokenUnreadable& e) {
      outcomes[i] = Outcome::Permanent(std::string("slack: ") + e.what());
      continue;
    } catch (const db::DbError& e) {
      outcomes[i] = Outcome::Retry(std::string("slack: the workspace's token: ") + e.what());
      continue;
    }
    const std::optional<std::string>& token = known->second;
    if (!token) {
      outcomes[i] = Outcome::Permanent("slack: workspace " + conversation.team_id +
                                       " has not installed the app");
      continue;
    }
    const auto rest_until = workspace_rests_.Until(conversation.team_id);
    if (rest_until > now + settings_.max_wait) {
      outcomes[i] = Outcome::Retry("slack: the workspace's rate limit asks to wait",
                                   RestLeft(rest_until, now));
      continue;
    }
    net::HttpRequest request;
    request.url = workspaces_->api_url + "/chat.postMessage";
    request.headers = {"Content-Type: application/json; charset=utf-8",
                       "Authorization: Bearer " + *token};
    AddDeliveryHeaders(request.headers, m.delivery_id);
    request.body = SlackPostMessageBody(conversation.conversation_id, m, settings_.public_url);
    request.timeout = settings_.timeout;
    request.not_before = rest_until;
    requests.push_back(std::move(request));
    message_of.push_back(i);
    team_of.push_back(conversation.team_id);
  }

  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests);
  const auto answered_at = std::chrono::system_clock::now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = message_of[j];
    const net::HttpResponse& response = responses[j];
    if (auto unanswered = UnansweredHttpOutcome(response, "slack")) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    outcomes[i] = SlackPostMessageOutcome(response, answered_at);
    if (RateLimited(response, outcomes[i])) {
      const auto wait = outcomes[i].retry_after.value_or(std::chrono::seconds(1));
      workspace_rests_.Rest(team_of[j], steady_clock::now() + wait);
    }
  }
}

}  // namespace chopar::channels::chat
