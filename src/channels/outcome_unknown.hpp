#pragma once

#include <optional>
#include <string_view>

#include "channels/channel.hpp"
#include "net/http_client.hpp"

namespace chopar::channels {

// A send whose request was written to the provider and then got no answer
// (a timeout or a reset after the request left, an SMTP session cut after
// the message's final "."): the provider may have accepted it, and sending
// again could deliver it twice. Such a send is final — the delivery fails
// with last_error "outcome unknown: <provider>: <what happened> …" and is
// counted in chopar_deliveries_outcome_unknown_total — unless the channel
// has its own idempotency guard (Eskiz checks its record and the provider
// first: channels::Channel::GuardsRepeats). Every channel classifies such
// failures through these two functions, so the rule and its wording are
// one (docs/RELIABILITY.md, "Deliveries").

// The outcome for a send that reached `provider` ("telegram", "webpush",
// "eskiz", "smtp") and ended with `what_happened` (libcurl's error, say)
// before the answer came.
Outcome OutcomeUnknown(std::string_view provider, std::string_view what_happened);

// For an HTTP request to a provider: nullopt when an answer came (a complete
// response, or a non-2xx status line before the failure: classify it by its
// status); Retry when it failed before any byte of the request was written
// (DNS, connection refused, connect timeout: the provider has nothing, so a
// later attempt cannot duplicate it); OutcomeUnknown when it failed after
// the request was written (net::HttpResponse::request_sent), including a 2xx
// status line whose body was cut off. Pure.
std::optional<Outcome> UnansweredHttpOutcome(const net::HttpResponse& response,
                                             std::string_view provider);

}  // namespace chopar::channels
