#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "channels/email/http_email_channel.hpp"
#include "channels/email/message.hpp"
#include "channels/email/settings.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::email {

// Amazon SES's v2 API (docs/api.md "Email through Amazon SES"): each email
// one SendEmail call, the same MIME message the SMTP path sends as its raw
// content, signed with AWS Signature Version 4 (net/aws_sigv4.hpp).

// [channels.email]'s ses_* keys.
struct SesSettings {
  std::string region;             // "eu-central-1"
  std::string access_key_id;      // an IAM user's or role's key with ses:SendEmail
  std::string secret_access_key;  // a secret
  std::string session_token;      // a temporary credential's token, or ""
  // The API's base URL; empty: https://email.<region>.amazonaws.com.
  std::string endpoint;
};

// SendEmail's JSON body: the MIME message as Content.Raw.Data (base64),
// sent from `from` to `to`.
std::string SesSendEmailBody(std::string_view from, std::string_view to, std::string_view mime);

// What SendEmail's answer means (the error's type is the x-amzn-ErrorType
// header or the body's "__type"; its text the body's "message"):
//   200 with a MessageId                        sent, the MessageId as its id
//   429, TooManyRequestsException,
//   LimitExceededException, Throttling, 5xx     retried, after Retry-After
//   403 (the signature or the key refused),
//   AccountSuspendedException,
//   SendingPausedException,
//   MailFromDomainNotVerifiedException,
//   MessageRejected, BadRequestException,
//   NotFoundException, any other 4xx           failed
// Pure.
Outcome SesOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now);

// The SendEmail call of each email (HttpEmailChannel sends them). Throws
// std::invalid_argument for a missing region or key, or an endpoint that is
// not http(s).
EmailApi SesApi(const EmailSettings& email, SesSettings ses);

}  // namespace chopar::channels::email
