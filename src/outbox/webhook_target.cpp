#include "outbox/webhook_target.hpp"

#include <stdexcept>

#include "outbox/standard_webhooks.hpp"

namespace chopar::outbox {
namespace {

// How much of an error answer's body is kept in last_error.
constexpr std::size_t kErrorBodyExcerpt = 200;

std::string DecodedKey(const TargetSettings& settings) {
  auto key = DecodeWebhookSecret(settings.secret);
  if (!key)
    throw std::invalid_argument("webhook target " + settings.name +
                                ": secret is not whsec_<base64>");
  return *key;
}

PublishOutcome OutcomeOf(const net::HttpResponse& response, core::TimePoint now) {
  if (response.ok()) return PublishOutcome::Ok();
  if (response.status == 0) {
    return PublishOutcome::Unavailable("no answer: " +
                                       (response.error_message.empty()
                                            ? std::string(curl_easy_strerror(response.error))
                                            : response.error_message));
  }
  std::string error =
      "HTTP " + std::to_string(response.status) +
      (response.body.empty() ? "" : ": " + response.body.substr(0, kErrorBodyExcerpt));
  if (response.status >= 500 || response.status == 429 || response.status == 408) {
    std::optional<std::chrono::seconds> retry_after;
    if (auto header = response.Header("retry-after"))
      retry_after = net::ParseRetryAfter(*header, now);
    return PublishOutcome::Unavailable(std::move(error), retry_after);
  }
  return PublishOutcome::Failed(std::move(error));
}

}  // namespace

WebhookTarget::WebhookTarget(const TargetSettings& settings, net::HttpClient& http,
                             const core::Clock& clock)
    : url_(settings.url),
      key_(DecodedKey(settings)),
      timeout_(settings.timeout),
      http_(http),
      clock_(clock) {}

std::vector<PublishOutcome> WebhookTarget::Publish(std::span<const Event* const> events) {
  const core::TimePoint now = clock_.Now();
  const std::int64_t timestamp =
      std::chrono::floor<std::chrono::seconds>(now).time_since_epoch().count();
  std::vector<net::HttpRequest> requests;
  requests.reserve(events.size());
  for (const Event* event : events) {
    net::HttpRequest& request = requests.emplace_back();
    request.method = "POST";
    request.url = url_;
    request.timeout = timeout_;
    request.body = event->body;
    request.headers = {
        "Content-Type: application/json",
        "User-Agent: chopar/" CHOPAR_VERSION,
        "webhook-id: " + event->event_id,
        "webhook-timestamp: " + std::to_string(timestamp),
        "webhook-signature: " + SignWebhook(key_, event->event_id, timestamp, event->body),
        // No "Expect: 100-continue" round trip for bodies over 1 KiB.
        "Expect:",
    };
  }
  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests);
  std::vector<PublishOutcome> outcomes;
  outcomes.reserve(responses.size());
  for (const net::HttpResponse& response : responses) outcomes.push_back(OutcomeOf(response, now));
  return outcomes;
}

}  // namespace chopar::outbox
