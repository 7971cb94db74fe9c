#pragma once

#include <string_view>
#include <vector>

#include "channels/sms/delivery_report.hpp"

namespace chopar::channels::sms {

// Reads the delivery reports Playmobile posts to the URL set up for the
// account. Playmobile's public documentation does not describe this body;
// what is accepted is what integrations that receive it read (the broker
// API's own shape, "message-id" and "status" per message) and what its
// status query returns:
//   {"messages": [{"message-id": "chopar42a1", "status": "delivered"}, …]}
//   [{"message-id": …, "status": …}, …]
//   {"message-id": …, "status": …}
//   message-id=…&status=… (a form, urlencoded or multipart)
// "message_id" is read where "message-id" is missing; values may be
// strings or integers; "error-code" is kept when given. The status is
// matched without case: "delivered" is kDelivered; "undelivered",
// "notdelivered" (also "not-delivered", "not_delivered"), "failed",
// "rejected" and "expired" kFailed; anything else ("transmitted",
// "deferred", …) kPending.
// Throws core::RequestError kInvalidCallback when the body holds no report,
// or a report has no id or no status, or NUL. Pure; thread-safe.
std::vector<SmsDeliveryReport> ParsePlaymobileReports(std::string_view body);

}  // namespace chopar::channels::sms
