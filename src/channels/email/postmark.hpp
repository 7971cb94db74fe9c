#pragma once

#include <chrono>
#include <string>

#include "channels/channel.hpp"
#include "channels/email/http_email_channel.hpp"
#include "channels/email/settings.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::email {

// Postmark's email API (docs/api.md "Email through Postmark"): each email
// one POST /email of the SMTP path's subject, text and HTML parts, with its
// List-Unsubscribe headers, and the server token in X-Postmark-Server-Token.

// [channels.email]'s postmark_* keys.
struct PostmarkSettings {
  std::string server_token;  // a secret
  std::string message_stream = "outbound";
  std::string base_url = "https://api.postmarkapp.com";
};

// What Postmark's answer means (its JSON's ErrorCode and Message):
//   200 with ErrorCode 0                  sent, its MessageID as the id
//   429, 5xx                              retried, after Retry-After
//   401, ErrorCode 10 (the token)         failed, "check the Postmark token"
//   422 (ErrorCode 300 invalid request,
//   406 inactive recipient, 412 …),
//   any other 4xx                         failed, with Postmark's code and message
// Pure.
Outcome PostmarkOutcome(const net::HttpResponse& response,
                        std::chrono::system_clock::time_point now);

// The /email call of each email. Throws std::invalid_argument for a
// missing token or stream, a bad `from` or base URL.
EmailApi PostmarkApi(const EmailSettings& email, PostmarkSettings postmark);

}  // namespace chopar::channels::email
