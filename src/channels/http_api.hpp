#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "channels/channel.hpp"
#include "net/http_client.hpp"
#include "net/in_flight_limit.hpp"

namespace chopar::channels {

// What the channels share that send each message of a batch as one call to
// a provider's HTTP API (the email services, the SMS gateways): the calls
// made at once under a limit, and the rule for calls that got no answer.

// What a complete answer means (one whose request was written and whose
// status line came back), at `now`, the time it came (for a Retry-After
// date). Pure.
using HttpAnswer = std::function<Outcome(const net::HttpResponse& response,
                                         std::chrono::system_clock::time_point now)>;

// One message of a batch: the call that sends it, or the outcome it gets
// without a call (no usable address, say).
using PreparedCall = std::variant<net::HttpRequest, Outcome>;

// The settings of one batch of calls to `provider` ("twilio", "postmark").
struct HttpBatch {
  std::string_view provider;
  // The longest a call may take once started, and the longest it may wait
  // for a slot of `in_flight` before it is given back unsent (Retry).
  std::chrono::milliseconds timeout{10000};
  net::InFlightLimit* in_flight = nullptr;  // not owned; nullptr: no limit
};

// Sends each of `messages` as `prepare` makes it, all at once through
// `http` under batch.in_flight, each call with the delivery headers
// (AddDeliveryHeaders) and batch.timeout; returns one outcome per message,
// in order. A call that got an answer is classified by `answer`; one that
// failed before its request was written is Retry, one that failed after is
// final and unknown (UnansweredHttpOutcome: never sent twice). Never throws
// for provider failures; whatever `prepare` or `answer` throw propagates.
// Thread-safe if `prepare` and `answer` are.
std::vector<Outcome> SendEachOverHttp(std::span<const Message> messages, const HttpBatch& batch,
                                      const std::function<PreparedCall(const Message&)>& prepare,
                                      const HttpAnswer& answer, net::HttpClient& http);

// For a 429 or a 5xx answer: Retry with `detail`, after the answer's
// Retry-After (read at `now`) when it has one. nullopt for any other status.
// Pure.
std::optional<Outcome> BusyOutcome(const net::HttpResponse& response, std::string detail,
                                   std::chrono::system_clock::time_point now);

// The base URL of a service's API from a key's value: http(s), without
// trailing slashes. Throws std::invalid_argument naming `key` otherwise.
std::string ApiBaseUrl(std::string url, std::string_view key);

}  // namespace chopar::channels
