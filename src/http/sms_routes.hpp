#pragma once

#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "http/router.hpp"

namespace chopar::http {

// What the SMS gateways' reports are checked with.
struct SmsReportSecrets {
  // The path secret of Eskiz's and Playmobile's reports ([channels.sms]
  // callback_secret, or the generated one).
  std::string callback_secret;
  // The auth token of each Twilio account configured (one per provider
  // entry of kind twilio); empty: Twilio's route answers 503.
  std::vector<std::string> twilio_auth_tokens;
  // [server] public_url without trailing slashes: the URL Twilio signed is
  // this + channels::sms::kTwilioStatusPath.
  std::string public_url;
};

// The SMS gateways' delivery reports (docs/api.md "SMS delivery reports"):
//   POST /v1/sms/eskiz/callback/{secret}       Eskiz
//   POST /v1/sms/playmobile/report/{secret}    Playmobile
// (the path secret compared in constant time: 404 when wrong, so the route
// does not reveal itself), and
//   POST /v1/sms/twilio/status                 Twilio's status callbacks,
// verified by X-Twilio-Signature under any configured account's auth token
// (401 when none matches). Each report is recorded idempotently on the
// delivery whose provider message id it names.
void RegisterSmsRoutes(Router& router, db::Pool& pool, const core::Clock& clock,
                       SmsReportSecrets secrets);

}  // namespace chopar::http
