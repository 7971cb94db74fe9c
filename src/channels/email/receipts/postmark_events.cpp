#include "channels/email/receipts/postmark_events.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <span>

#include "channels/email/receipts/json_fields.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::email::receipts {
namespace {

constexpr std::string_view kBasic = "Basic ";

bool OneOf(std::string_view value, std::span<const std::string_view> names) {
  return std::ranges::find(names, value) != names.end();
}

// Bounce records that say nothing went wrong with the message itself.
constexpr std::array<std::string_view, 6> kNotFailures = {"Unsubscribe",           "Subscribe",
                                                          "AutoResponder",         "AddressChange",
                                                          "ChallengeVerification", "OpenRelayTest"};
// Bounce records that say the address itself will not take mail.
constexpr std::array<std::string_view, 3> kAddressGone = {"HardBounce", "BadEmailAddress",
                                                          "ManuallyDeactivated"};
constexpr std::array<std::string_view, 2> kSpam = {"SpamComplaint", "SpamNotification"};

EmailReceipt Mapped(const nlohmann::json& record) {
  const std::string record_type = Text(record, "RecordType");
  const std::string type = Text(record, "Type");
  EmailReceipt receipt;
  receipt.detail = record_type;
  if (record_type == "Delivery") {
    receipt.kind = ReceiptKind::kDelivered;
    receipt.detail = Text(record, "Details");
  } else if (record_type == "SpamComplaint" || (record_type == "Bounce" && OneOf(type, kSpam))) {
    receipt.kind = ReceiptKind::kComplained;
    receipt.detail = type.empty() ? record_type : type;
  } else if (record_type == "Bounce") {
    receipt.detail = type;
    if (const std::string description = Text(record, "Description"); !description.empty()) {
      receipt.detail += ": " + description;
    }
    if (!OneOf(type, kNotFailures)) {
      const nlohmann::json* inactive = Member(record, "Inactive");
      receipt.kind = ReceiptKind::kBounced;
      receipt.permanent = OneOf(type, kAddressGone) ||
                          (inactive != nullptr && inactive->is_boolean() && inactive->get<bool>());
    }
  }
  receipt.detail = ShortDetail(receipt.detail);
  return receipt;
}

core::TimePoint RecordTime(const nlohmann::json& record, core::TimePoint fallback) {
  for (const char* name : {"DeliveredAt", "BouncedAt", "ReceivedAt", "ChangedAt"}) {
    if (const auto at = core::ParseRfc3339(Text(record, name))) return *at;
  }
  return fallback;
}

}  // namespace

bool PostmarkAuthValid(std::string_view authorization_header, std::string_view expected_user,
                       std::string_view expected_password) {
  if (expected_user.empty() || expected_password.empty()) return false;
  const std::string_view header = core::TrimBlanks(authorization_header);
  if (!core::StartsWithIgnoringCase(header, kBasic)) return false;
  const auto given = core::Base64Decode(core::TrimBlanks(header.substr(kBasic.size())));
  if (!given) return false;
  std::string expected(expected_user);
  expected.append(":").append(expected_password);
  return core::ConstantTimeEquals(core::Sha256(*given), core::Sha256(expected));
}

ReceiptBatch VerifiedPostmarkReceipts(std::string_view authorization_header,
                                      std::string_view expected_user,
                                      std::string_view expected_password, std::string_view body,
                                      core::TimePoint now) {
  if (!PostmarkAuthValid(authorization_header, expected_user, expected_password)) {
    return ReceiptBatch::Refused(Refusal::kUnauthenticated,
                                 "the Postmark webhook's credentials do not hold");
  }
  if (body.size() > kMaxReceiptBodyBytes) {
    return ReceiptBatch::TooLarge("the Postmark webhook");
  }
  const nlohmann::json record = core::ParseJsonOrDiscarded(body);
  if (Text(record, "RecordType").empty()) {
    return ReceiptBatch::Refused(Refusal::kMalformed,
                                 "a Postmark webhook is a JSON object with a RecordType");
  }
  ReceiptBatch batch;
  const std::string id = Text(record, "MessageID");
  if (id.empty()) {
    batch.skipped = 1;
    return batch;
  }
  EmailReceipt receipt = Mapped(record);
  receipt.provider = "postmark";
  receipt.provider_message_id = id;
  receipt.recipient = Text(record, "Email");
  if (receipt.recipient.empty()) receipt.recipient = Text(record, "Recipient");
  receipt.at = RecordTime(record, now);
  (void)batch.Add(std::move(receipt));
  return batch;
}

}  // namespace chopar::channels::email::receipts
