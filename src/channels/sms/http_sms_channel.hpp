#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "channels/http_api.hpp"
#include "net/http_client.hpp"
#include "net/in_flight_limit.hpp"

namespace chopar::channels::sms {

// What differs between the SMS gateways chopar calls once per message
// without a record of its own (Twilio, Playmobile): the call that sends one
// text and what its answer means. The text, the concurrency and the
// unanswered calls are HttpSmsChannel's.
struct SmsApi {
  std::string provider;  // "twilio", "playmobile": logs, metrics, last_error
  // The call that sends `text` to the message's phone (URL, credentials,
  // body). The message always has a phone with digits; HttpSmsChannel adds
  // the delivery headers, the timeout and the start deadline.
  std::function<net::HttpRequest(const Message& message, const std::string& text)> request;
  // What a complete answer means.
  HttpAnswer outcome;
  // When set, chopar names each message itself (Playmobile's message-id):
  // `request` sends this name, and a Sent outcome without an id of the
  // provider's carries it as its provider_message_id, so that a delivery
  // report finds its delivery. Unset: the provider's answer names it.
  std::function<std::string(const Message& message)> message_id;
  std::chrono::milliseconds timeout{10000};  // one call, from its start
  std::size_t max_in_flight = 64;            // calls at once, across Send calls
};

// How the text of an SMS is made: RenderSmsText's link base and length.
struct SmsText {
  std::string public_url = "http://127.0.0.1:8080";  // [server] public_url
  std::size_t max_chars = 300;                       // code points, "…" included
};

// Sends SMS through `api`: each message's text rendered as Eskiz's is
// (RenderSmsText), all of a batch at once, at most api.max_in_flight calls
// in flight (a call that gets no slot within the timeout is given back
// unsent: Retry). A message without a phone number fails (Permanent). A
// failure before the request was written is retried; after it the outcome
// is unknown and final (OutcomeUnknown): the gateways have no idempotency
// key, and a second SMS is worse than a missing one.
// Holds a reference: `http` must outlive the channel. Thread-safe.
class HttpSmsChannel final : public Channel {
 public:
  HttpSmsChannel(SmsApi api, SmsText text, net::HttpClient& http);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return api_.provider; }

 private:
  SmsApi api_;
  SmsText text_;
  net::HttpClient& http_;
  net::InFlightLimit in_flight_;
};

// The digits of a phone number ("+998 90 123-45-67" → "998901234567"):
// E.164 without its '+', as the gateways want it. Pure.
std::string PhoneDigits(std::string_view phone);

}  // namespace chopar::channels::sms
