#include "channels/chat/webhook_channel.hpp"

#include "channels/chat/webhook_url.hpp"
#include "channels/outcome_unknown.hpp"

namespace chopar::channels::chat {
using std::chrono::steady_clock;

ChatWebhookChannel::ChatWebhookChannel(const ChatFormat& format, ChatWebhookSettings settings,
                                       net::HttpClient& http)
    : format_(format), settings_(std::move(settings)), http_(http) {}

std::vector<Outcome> ChatWebhookChannel::Send(std::span<const Message> messages) {
  const std::string provider(format_.provider);
  std::vector<Outcome> outcomes(messages.size());
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> message_of;  // index into `messages` of each request
  const auto now = steady_clock::now();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (!m.address) {
      outcomes[i] = Outcome::Permanent(provider + ": the user has no webhook for this channel");
      continue;
    }
    if (auto problem = WebhookUrlProblem(*m.address, settings_.allow_local_webhooks)) {
      outcomes[i] = Outcome::Permanent(provider + ": the webhook URL " + *problem);
      continue;
    }
    const auto rest_until = rests_.Until(*m.address);
    if (rest_until > now + settings_.max_wait) {
      outcomes[i] = Outcome::Retry(provider + ": the webhook's rate limit asks to wait",
                                   RestLeft(rest_until, now));
      continue;
    }
    net::HttpRequest request;
    request.url = format_.target(*m.address);
    request.headers = {"Content-Type: application/json"};
    AddDeliveryHeaders(request.headers, m.delivery_id);
    request.body = format_.body(m, settings_.public_url);
    request.timeout = settings_.timeout;
    request.not_before = rest_until;
    request.public_addresses_only = !settings_.allow_local_webhooks;
    requests.push_back(std::move(request));
    message_of.push_back(i);
  }

  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests);
  const auto answered_at = std::chrono::system_clock::now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = message_of[j];
    const net::HttpResponse& response = responses[j];
    if (response.address_refused) {
      outcomes[i] = Outcome::Permanent(provider + ": the webhook's host resolves to an address " +
                                       "that is not public (" + response.error_message + ")");
      continue;
    }
    if (auto unanswered = UnansweredHttpOutcome(response, provider)) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    outcomes[i] = format_.outcome(response, answered_at);
    if (const auto rest = format_.rest(response, answered_at)) {
      rests_.Rest(*messages[i].address, steady_clock::now() + *rest);
    }
  }
  return outcomes;
}

}  // namespace chopar::channels::chat
