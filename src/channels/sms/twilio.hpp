#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "channels/channel.hpp"
#include "channels/sms/http_sms_channel.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::sms {

// Twilio Programmable Messaging: each SMS one
// POST {base_url}/2010-04-01/Accounts/{account_sid}/Messages.json, a form of
// To (E.164), From and/or MessagingServiceSid, Body and StatusCallback, with
// HTTP basic auth account_sid:auth_token.

// How chopar sends SMS through Twilio; a value, set once at construction.
struct TwilioSettings {
  std::string account_sid;  // "AC…"
  std::string auth_token;   // a secret; also signs the status callbacks
  // The sender: a Twilio number (E.164) or alphanumeric sender ID, and/or a
  // Messaging Service ("MG…") that picks one from its pool. At least one;
  // with both, Twilio sends From if it belongs to the service.
  std::string from;
  std::string messaging_service_sid;
  std::string base_url = "https://api.twilio.com";
  // Where Twilio posts each message's status changes (twilio_callback.hpp);
  // empty: none requested.
  std::string status_callback_url;
  std::chrono::milliseconds timeout{10000};  // one call
  std::size_t max_in_flight = 64;            // calls at once
};

// What Twilio's answer means (its JSON error is {"code", "message",
// "more_info", "status"}):
//   2xx (201 Created)                      sent, the JSON's "sid" as the id
//   429 (code 20429), 5xx                  retried, after Retry-After
//   code 21211 (invalid To number),
//   21614 (To is not a mobile number),
//   21610 (the recipient replied STOP)     address gone: no SMS to this
//                                          number can succeed, whatever
//                                          chopar changes (as a Telegram
//                                          chat that blocked the bot)
//   401, code 20003 (authentication)       failed, "check the Twilio credentials"
//   any other 4xx                          failed, with Twilio's code and message
// Pure.
Outcome TwilioOutcome(const net::HttpResponse& response, std::chrono::system_clock::time_point now);

// The Messages.json call of each SMS, for HttpSmsChannel. Throws
// std::invalid_argument for a missing account SID or auth token, no sender
// (neither from nor messaging_service_sid) or a bad base URL.
SmsApi TwilioApi(TwilioSettings twilio);

}  // namespace chopar::channels::sms
