#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "channels/email/compose.hpp"
#include "channels/email/message.hpp"
#include "channels/email/settings.hpp"
#include "channels/http_api.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"
#include "net/in_flight_limit.hpp"

namespace chopar::channels::email {

// What differs between the email services chopar calls over HTTP (Amazon
// SES, Mailgun): the call that sends one composed email and what its
// answer means. The composition (the SMTP path's MIME message), the
// concurrency and the unanswered calls are HttpEmailChannel's.
struct EmailApi {
  std::string provider;  // "ses", "mailgun": logs, metrics, last_error
  // The call that sends `email` to the message's address (URL, headers,
  // body, credentials); HttpEmailChannel adds the delivery headers, the
  // timeout and the start deadline.
  std::function<net::HttpRequest(const Message& message, const ComposedEmail& email)> request;
  // What a complete answer means.
  HttpAnswer outcome;
};

// Sends email through `api`: each message composed as the SMTP path does,
// all of a batch at once, at most max_in_flight calls in flight (a call
// that gets no slot within the timeout is given back unsent). A failure
// before the request was written is retried; after it the outcome is
// unknown and final (OutcomeUnknown): the services have no idempotency key.
// Throws std::invalid_argument from the constructor for a bad `from`.
// Thread-safe.
class HttpEmailChannel final : public Channel {
 public:
  HttpEmailChannel(EmailSettings email, EmailApi api, net::HttpClient& http,
                   const core::Clock& clock);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return api_.provider; }

 private:
  EmailSettings email_;
  EmailApi api_;
  Mailbox from_;
  net::HttpClient& http_;
  const core::Clock& clock_;
  net::InFlightLimit in_flight_;
};

}  // namespace chopar::channels::email
