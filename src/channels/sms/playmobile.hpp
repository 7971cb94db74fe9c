#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "channels/channel.hpp"
#include "channels/sms/http_sms_channel.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::sms {

// Playmobile (playmobile.uz, smsxabar.uz), the Uzbek SMS gateway, through
// its broker API: each SMS one POST {base_url}/broker-api/send of
//   {"messages": [{"recipient": "998901234567", "message-id": "chopar42a1",
//                  "sms": {"originator": "3700", "content": {"text": "…"}}}]}
// with HTTP basic auth login:password. Playmobile answers 200 with no id of
// its own ("Request is received"): the message-id chopar chose is the
// provider message id, and its delivery reports name it
// (playmobile_report.hpp).

// How chopar sends SMS through Playmobile; a value, set once at construction.
struct PlaymobileSettings {
  std::string base_url = "https://send.smsxabar.uz";
  std::string login;
  std::string password;                      // a secret
  std::string originator = "3700";           // the sender name or short number Playmobile assigned
  std::chrono::milliseconds timeout{10000};  // one call
  std::size_t max_in_flight = 64;            // calls at once
};

// The message-id of a delivery's attempt: "chopar<delivery_id>a<attempt>".
// Letters and digits only; a new one for each attempt, so a retry after a
// refusal is never taken for a repeat of the refused one. Pure.
std::string PlaymobileMessageId(const Message& message);

// What Playmobile's answer means. Its errors are a 400 with
// {"error-code": N, "error-description": "…"}; the codes are those of the
// broker API's documentation as the public client libraries carry it (100
// internal error, 101 syntax, 102 account locked, 202 no recipient, 401 no
// originator, 404 no content, 406 bad content, …):
//   2xx                                  sent, PlaymobileMessageId as the id
//   429, 5xx                             retried, after Retry-After
//   error-code 100 (their internal
//   error: they took nothing)            retried
//   401, 403                             failed, "check the Playmobile login"
//   error-code 102 (account locked)      failed, "check the Playmobile account"
//   any other 4xx                        failed, with the code and description
// Pure.
Outcome PlaymobileOutcome(const net::HttpResponse& response,
                          std::chrono::system_clock::time_point now);

// The broker-api/send call of each SMS, for HttpSmsChannel. Throws
// std::invalid_argument for a missing login, password or originator, or a
// bad base URL.
SmsApi PlaymobileApi(PlaymobileSettings playmobile);

}  // namespace chopar::channels::sms
