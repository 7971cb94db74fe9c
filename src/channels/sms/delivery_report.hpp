#pragma once

#include <string>

namespace chopar::channels::sms {

// Where an SMS stands according to a gateway's delivery report.
enum class SmsDeliveryState {
  kPending,    // on its way (queued, sent to the operator, …): more reports follow
  kDelivered,  // final: the handset has it
  kFailed,     // final: it will not arrive
};

// One delivery report of a gateway (Twilio's status callback, Playmobile's
// report), read from its callback body; recording it is the caller's.
struct SmsDeliveryReport {
  std::string provider_message_id;  // the id the send's outcome carried
  std::string status;               // as the gateway wrote it
  SmsDeliveryState state = SmsDeliveryState::kPending;
  std::string error_code;  // the gateway's code for a failure; "" when none
};

}  // namespace chopar::channels::sms
