#pragma once

#include <chrono>
#include <string>

#include "channels/channel.hpp"
#include "channels/email/http_email_channel.hpp"
#include "channels/email/settings.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::email {

// SendGrid's v3 Mail Send (docs/api.md "Email through SendGrid"): each
// email one POST /v3/mail/send of the SMTP path's subject, text and HTML
// parts, with its List-Unsubscribe headers, and the API key as a bearer
// token.

// [channels.email]'s sendgrid_* keys.
struct SendGridSettings {
  std::string api_key;  // a secret
  std::string base_url = "https://api.sendgrid.com";
};

// What SendGrid's answer means:
//   202                                   sent, its X-Message-Id as the id
//   429, 5xx                              retried, after Retry-After
//   401, 403 (the key, or a sender
//   identity not verified)                failed, with SendGrid's message
//   400, 413, any other 4xx               failed, with SendGrid's first error
// Pure.
Outcome SendGridOutcome(const net::HttpResponse& response,
                        std::chrono::system_clock::time_point now);

// The mail/send call of each email. Throws std::invalid_argument for a
// missing key, a bad `from` or base URL.
EmailApi SendGridApi(const EmailSettings& email, SendGridSettings sendgrid);

}  // namespace chopar::channels::email
