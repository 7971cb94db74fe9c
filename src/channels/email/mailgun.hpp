#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "channels/email/http_email_channel.hpp"
#include "channels/email/settings.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::email {

// Mailgun's sending API (docs/api.md "Email through Mailgun"): each email
// one POST /v3/<domain>/messages.mime of the SMTP path's own MIME message,
// as multipart/form-data, with HTTP basic auth "api:<key>".

// [channels.email]'s mailgun_* keys.
struct MailgunSettings {
  std::string domain;   // the sending domain, "mg.acme.uz"
  std::string api_key;  // a secret
  // https://api.mailgun.net (US) or https://api.eu.mailgun.net (EU).
  std::string base_url = "https://api.mailgun.net";
};

// The multipart/form-data body of messages.mime: `to`, and `message` the
// MIME message as a file. `boundary` must not occur in `mime`.
std::string MailgunMimeForm(std::string_view to, std::string_view mime, std::string_view boundary);

// What Mailgun's answer means:
//   200 with an id                        sent, the id as the provider's id
//   429, 5xx                              retried, after Retry-After
//   401, 403 (the key refused)            failed, "check the Mailgun key"
//   400, 402, 404 (no such domain), 413,
//   any other 4xx                         failed, with Mailgun's message
// Pure.
Outcome MailgunOutcome(const net::HttpResponse& response,
                       std::chrono::system_clock::time_point now);

// The messages.mime call of each email (HttpEmailChannel sends them). Throws
// std::invalid_argument for a missing domain or key, a domain that is not a
// host name, or a base URL that is not http(s).
EmailApi MailgunApi(MailgunSettings mailgun);

}  // namespace chopar::channels::email
