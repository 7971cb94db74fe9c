#include "channels/outcome_unknown.hpp"

#include <string>

namespace chopar::channels {

Outcome OutcomeUnknown(std::string_view provider, std::string_view what_happened) {
  return Outcome::Unknown("outcome unknown: " + std::string(provider) + ": " +
                          std::string(what_happened) +
                          " after the request was sent; not sent again, to avoid a duplicate");
}

std::optional<Outcome> UnansweredHttpOutcome(const net::HttpResponse& response,
                                             std::string_view provider) {
  if (response.error == CURLE_OK) return std::nullopt;
  const bool accepted_status = response.status >= 200 && response.status < 300;
  // A refusal or an error status came before the failure: the provider
  // answered, and said it did not take the message.
  if (response.status != 0 && !accepted_status) return std::nullopt;
  const std::string error =
      response.error_message.empty() ? "request failed" : response.error_message;
  if (!response.request_sent) return Outcome::Retry(std::string(provider) + ": " + error);
  return OutcomeUnknown(provider, error);
}

}  // namespace chopar::channels
