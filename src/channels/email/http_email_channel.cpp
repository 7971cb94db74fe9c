#include "channels/email/http_email_channel.hpp"

#include <algorithm>
#include <stdexcept>

#include "channels/outcome_unknown.hpp"

namespace chopar::channels::email {

HttpEmailChannel::HttpEmailChannel(EmailSettings email, EmailApi api, net::HttpClient& http,
                                   const core::Clock& clock)
    : email_(std::move(email)),
      api_(std::move(api)),
      http_(http),
      clock_(clock),
      in_flight_(std::max<std::size_t>(1, email_.max_in_flight)) {
  const auto from = ParseMailbox(email_.from);
  if (!from) throw std::invalid_argument("from is not an email address: " + email_.from);
  from_ = *from;
}

std::vector<Outcome> HttpEmailChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> message_of;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    const auto email = ComposeEmail(m, from_, email_, clock_.Now());
    if (!email) {
      outcomes[i] = Outcome::Permanent(api_.provider + ": no usable email address");
      continue;
    }
    net::HttpRequest request = api_.request(m, *email);
    AddDeliveryHeaders(request.headers, m.delivery_id);
    request.timeout = email_.timeout;
    request.start_by = std::chrono::steady_clock::now() + email_.timeout;
    requests.push_back(std::move(request));
    message_of.push_back(i);
  }
  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests, &in_flight_);
  const auto answered_at = std::chrono::system_clock::now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = message_of[j];
    if (auto unanswered = UnansweredHttpOutcome(responses[j], api_.provider)) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    outcomes[i] = api_.outcome(responses[j], answered_at);
  }
  return outcomes;
}

std::string ApiBaseUrl(std::string url, std::string_view key) {
  while (url.ends_with('/')) url.pop_back();
  if (!url.starts_with("https://") && !url.starts_with("http://")) {
    throw std::invalid_argument(std::string(key) + " must be an http(s) URL, not \"" + url + "\"");
  }
  return url;
}

}  // namespace chopar::channels::email
