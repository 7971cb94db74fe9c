#include "channels/http_api.hpp"

#include <stdexcept>

#include "channels/outcome_unknown.hpp"

namespace chopar::channels {

std::vector<Outcome> SendEachOverHttp(std::span<const Message> messages, const HttpBatch& batch,
                                      const std::function<PreparedCall(const Message&)>& prepare,
                                      const HttpAnswer& answer, net::HttpClient& http) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> message_of;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    PreparedCall call = prepare(messages[i]);
    if (auto* refused = std::get_if<Outcome>(&call)) {
      outcomes[i] = std::move(*refused);
      continue;
    }
    auto& request = std::get<net::HttpRequest>(call);
    AddDeliveryHeaders(request.headers, messages[i].delivery_id);
    request.timeout = batch.timeout;
    request.start_by = std::chrono::steady_clock::now() + batch.timeout;
    requests.push_back(std::move(request));
    message_of.push_back(i);
  }
  const std::vector<net::HttpResponse> responses = http.PerformAll(requests, batch.in_flight);
  // The wall clock, not an injected one: a Retry-After date is the
  // provider's real time.
  const auto answered_at = std::chrono::system_clock::now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = message_of[j];
    if (auto unanswered = UnansweredHttpOutcome(responses[j], batch.provider)) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    outcomes[i] = answer(responses[j], answered_at);
  }
  return outcomes;
}

std::optional<Outcome> BusyOutcome(const net::HttpResponse& response, std::string detail,
                                   std::chrono::system_clock::time_point now) {
  if (response.status != 429 && response.status < 500) return std::nullopt;
  std::optional<std::chrono::seconds> wait;
  if (const auto header = response.Header("retry-after")) wait = net::ParseRetryAfter(*header, now);
  return Outcome::Retry(std::move(detail), wait);
}

std::string ApiBaseUrl(std::string url, std::string_view key) {
  while (url.ends_with('/')) url.pop_back();
  if (!url.starts_with("https://") && !url.starts_with("http://")) {
    throw std::invalid_argument(std::string(key) + " must be an http(s) URL, not \"" + url + "\"");
  }
  return url;
}

}  // namespace chopar::channels
