#include "channels/email/receipts/ses_events.hpp"

#include <cctype>

#include "channels/email/receipts/json_fields.hpp"
#include "core/json.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::email::receipts {
namespace {

// The event's own time, else the message's, else `fallback`.
core::TimePoint EventTime(const nlohmann::json& event, const nlohmann::json& mail,
                          core::TimePoint fallback) {
  for (const nlohmann::json* object : {&event, &mail}) {
    if (const auto at = core::ParseRfc3339(Text(*object, "timestamp"))) return *at;
  }
  return fallback;
}

// The addresses of `recipients`: objects' "emailAddress" (bounce,
// complaint, delay) or plain strings (delivery, mail.destination).
std::vector<std::string> Addresses(const nlohmann::json& recipients) {
  std::vector<std::string> addresses;
  for (const auto& item : recipients) {
    std::string address = item.is_string() ? item.get<std::string>() : Text(item, "emailAddress");
    if (!address.empty()) addresses.push_back(std::move(address));
  }
  return addresses;
}

std::string BounceDetail(const nlohmann::json& bounce, const nlohmann::json& recipient) {
  std::string detail = Text(bounce, "bounceType");
  if (const std::string sub_type = Text(bounce, "bounceSubType"); !sub_type.empty()) {
    detail += "/" + sub_type;
  }
  std::string diagnostic = Text(recipient, "diagnosticCode");
  if (diagnostic.empty()) diagnostic = Text(recipient, "status");
  if (!diagnostic.empty()) detail += ": " + diagnostic;
  return ShortDetail(detail);
}

}  // namespace

ReceiptBatch ParseSesEvent(std::string_view message, core::TimePoint fallback_time) {
  const nlohmann::json event = core::ParseJsonOrDiscarded(message);
  if (!event.is_object()) {
    return ReceiptBatch::Refused(Refusal::kMalformed, "the SNS Message is not an SES event object");
  }
  std::string type = Text(event, "eventType");
  if (type.empty()) type = Text(event, "notificationType");
  const nlohmann::json& mail = Object(event, "mail");
  const std::string message_id = Text(mail, "messageId");
  if (type.empty() || message_id.empty()) {
    return ReceiptBatch::Refused(Refusal::kMalformed,
                                 "an SES event needs eventType (or notificationType) and "
                                 "mail.messageId");
  }

  ReceiptBatch batch;
  auto add = [&](const std::string& recipient, ReceiptKind kind, bool permanent, std::string detail,
                 core::TimePoint at) {
    return batch.Add({"ses", message_id, kind, permanent, recipient, std::move(detail), at});
  };
  if (type == "Delivery") {
    const nlohmann::json& delivery = Object(event, "delivery");
    const core::TimePoint at = EventTime(delivery, mail, fallback_time);
    const std::string detail = ShortDetail(Text(delivery, "smtpResponse"));
    for (const auto& address : Addresses(Items(delivery, "recipients"))) {
      if (!add(address, ReceiptKind::kDelivered, false, detail, at)) return batch;
    }
  } else if (type == "Bounce") {
    const nlohmann::json& bounce = Object(event, "bounce");
    const core::TimePoint at = EventTime(bounce, mail, fallback_time);
    const bool permanent = Text(bounce, "bounceType") == "Permanent";
    for (const auto& recipient : Items(bounce, "bouncedRecipients")) {
      const std::string address = Text(recipient, "emailAddress");
      if (address.empty()) continue;
      if (!add(address, ReceiptKind::kBounced, permanent, BounceDetail(bounce, recipient), at)) {
        return batch;
      }
    }
  } else if (type == "Complaint") {
    const nlohmann::json& complaint = Object(event, "complaint");
    const core::TimePoint at = EventTime(complaint, mail, fallback_time);
    std::string detail = Text(complaint, "complaintFeedbackType");
    if (detail.empty()) detail = Text(complaint, "complaintSubType");
    if (detail.empty()) detail = "complaint";
    for (const auto& address : Addresses(Items(complaint, "complainedRecipients"))) {
      if (!add(address, ReceiptKind::kComplained, false, ShortDetail(detail), at)) return batch;
    }
  } else {
    // The event's own object is named after its type in lowerCamelCase
    // ("DeliveryDelay" → "deliveryDelay"), where it has one.
    std::string object_name = type;
    object_name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(object_name[0])));
    const nlohmann::json& own = Object(event, object_name.c_str());
    std::vector<std::string> addresses = Addresses(Items(own, "delayedRecipients"));
    if (addresses.empty()) addresses = Addresses(Items(mail, "destination"));
    const core::TimePoint at = EventTime(own, mail, fallback_time);
    std::string detail = type;
    if (const std::string delay = Text(own, "delayType"); !delay.empty()) detail += ": " + delay;
    for (const auto& address : addresses) {
      if (!add(address, ReceiptKind::kOther, false, ShortDetail(detail), at)) return batch;
    }
  }
  return batch;
}

}  // namespace chopar::channels::email::receipts
