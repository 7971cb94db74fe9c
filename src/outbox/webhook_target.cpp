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

std::size_t InFlightOf(const TargetSettings& settings) {
  if (settings.max_in_flight < 1)
    throw std::invalid_argument("webhook target " + settings.name +
                                ": max_in_flight must be at least 1");
  return static_cast<std::size_t>(settings.max_in_flight);
}

PublishOutcome OutcomeOf(const net::HttpResponse& response, core::TimePoint now,
                         std::size_t max_in_flight) {
  if (response.ok()) return PublishOutcome::Ok();
  // Never sent, so nothing to repeat: due again at once (no backoff), as
  // the next batch's first events.
  if (response.not_started) {
    return PublishOutcome::Unavailable("not sent: " + std::to_string(max_in_flight) +
                                           " requests (max_in_flight) were in flight to the "
                                           "receiver for the whole timeout",
                                       std::chrono::seconds(0));
  }
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
      clock_(clock),
      in_flight_(InFlightOf(settings)) {}

std::vector<PublishOutcome> WebhookTarget::Publish(std::span<const Event* const> events) {
  const core::TimePoint now = clock_.Now();
  // A request waits for a free slot at most one timeout; with its own
  // timeout after that, Publish returns within twice the timeout.
  const auto start_by = std::chrono::steady_clock::now() + timeout_;
  const std::int64_t timestamp =
      std::chrono::floor<std::chrono::seconds>(now).time_since_epoch().count();
  std::vector<net::HttpRequest> requests;
  requests.reserve(events.size());
  for (const Event* event : events) {
    net::HttpRequest& request = requests.emplace_back();
    request.method = "POST";
    request.url = url_;
    request.timeout = timeout_;
    request.start_by = start_by;
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
  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests, &in_flight_);
  std::vector<PublishOutcome> outcomes;
  outcomes.reserve(responses.size());
  for (const net::HttpResponse& response : responses)
    outcomes.push_back(OutcomeOf(response, now, in_flight_.capacity()));
  return outcomes;
}

}  // namespace chopar::outbox
