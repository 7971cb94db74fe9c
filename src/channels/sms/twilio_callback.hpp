#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "channels/sms/delivery_report.hpp"

namespace chopar::channels::sms {

// What Twilio posts to a message's StatusCallback URL: a form
// (application/x-www-form-urlencoded) signed in its X-Twilio-Signature
// header. Pure functions; thread-safe.

// The route Twilio posts status callbacks to, after [server] public_url:
// the URL each message's StatusCallback names and the signature signs.
inline constexpr std::string_view kTwilioStatusPath = "/v1/sms/twilio/status";

// A form's name=value pairs, decoded, in the order sent
// (core::DecodeFormPairs of the body).
using FormParams = std::span<const std::pair<std::string, std::string>>;

// X-Twilio-Signature for a POST to `url` with `params`: base64 of
// HMAC-SHA1, under the account's auth token, of the URL exactly as Twilio
// called it (scheme, host, path and query) followed by each parameter's
// name and value, sorted by name then value, a repeated identical pair
// counted once (as Twilio's own validators do).
std::string TwilioSignature(std::string_view auth_token, std::string_view url, FormParams params);

// Whether `signature` (the header's value) is TwilioSignature's, compared
// in constant time. False for an empty signature.
bool TwilioSignatureValid(std::string_view auth_token, std::string_view url, FormParams params,
                          std::string_view signature);

// The status report of one message in a status callback's parameters:
// MessageSid (else SmsSid) as the provider message id, MessageStatus (else
// SmsStatus) as the status, ErrorCode when Twilio gave one (undelivered,
// failed). delivered and read are kDelivered; undelivered, failed and
// canceled kFailed; the rest (accepted, queued, sending, sent, …) kPending.
// Throws core::RequestError kInvalidCallback when there is no id or no
// status, or either holds NUL. Check the signature first.
SmsDeliveryReport ParseTwilioStatusCallback(FormParams params);

}  // namespace chopar::channels::sms
