#include "channels/email/receipts/mailgun_events.hpp"

#include <nlohmann/json.hpp>

#include "channels/email/receipts/json_fields.hpp"
#include "channels/email/receipts/signed_time.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "core/text.hpp"

namespace chopar::channels::email::receipts {
namespace {

// "550 5.1.1 mailbox does not exist": delivery-status's code and what it says.
std::string DeliveryStatus(const nlohmann::json& event_data) {
  const nlohmann::json& status = Object(event_data, "delivery-status");
  std::string text = Text(status, "description");
  if (text.empty()) text = Text(status, "message");
  // The code is a number in most events and a string in some.
  const nlohmann::json* code = Member(status, "code");
  const std::string code_text = code != nullptr && code->is_number_integer()
                                    ? std::to_string(code->get<long long>())
                                    : Text(status, "code");
  if (code_text.empty()) return text;
  return text.empty() ? code_text : code_text + " " + text;
}

EmailReceipt Mapped(const nlohmann::json& event_data) {
  const std::string name = Text(event_data, "event");
  EmailReceipt receipt;
  receipt.detail = name;
  if (name == "delivered") {
    receipt.kind = ReceiptKind::kDelivered;
    receipt.detail = DeliveryStatus(event_data);
  } else if (name == "failed") {
    receipt.kind = ReceiptKind::kBounced;
    receipt.permanent = Text(event_data, "severity") == "permanent";
    receipt.detail = DeliveryStatus(event_data);
    if (receipt.detail.empty()) receipt.detail = Text(event_data, "reason");
  } else if (name == "rejected") {
    receipt.kind = ReceiptKind::kBounced;
    receipt.detail = "rejected: " + Text(Object(event_data, "reject"), "reason");
  } else if (name == "complained") {
    receipt.kind = ReceiptKind::kComplained;
  }
  receipt.detail = ShortDetail(receipt.detail);
  return receipt;
}

}  // namespace

bool MailgunSignatureValid(std::string_view signing_key, std::string_view timestamp,
                           std::string_view token, std::string_view signature) {
  if (signing_key.empty()) return false;
  std::string signed_text(timestamp);
  signed_text.append(token);
  const std::string expected = core::HexEncode(core::HmacSha256(signing_key, signed_text));
  return core::ConstantTimeEquals(core::AsciiLower(signature), expected);
}

std::string MailgunStoredMessageId(std::string_view id) {
  const std::string_view bare = core::TrimAny(id, " \t\r\n<>");
  return bare.empty() ? std::string() : "<" + std::string(bare) + ">";
}

ReceiptBatch VerifiedMailgunReceipts(std::string_view body, std::string_view signing_key,
                                     core::TimePoint now, std::chrono::seconds max_skew) {
  if (body.size() > kMaxReceiptBodyBytes) {
    return ReceiptBatch::TooLarge("the Mailgun webhook");
  }
  const nlohmann::json hook = core::ParseJsonOrDiscarded(body);
  const nlohmann::json& signature = Object(hook, "signature");
  const std::string timestamp = Text(signature, "timestamp");
  const std::string token = Text(signature, "token");
  const std::string hex = Text(signature, "signature");
  if (timestamp.empty() || token.empty() || hex.empty()) {
    return ReceiptBatch::Refused(
        Refusal::kMalformed, "a Mailgun webhook needs signature.timestamp, token and signature");
  }
  if (!MailgunSignatureValid(signing_key, timestamp, token, hex)) {
    return ReceiptBatch::Refused(Refusal::kUnauthenticated, "the Mailgun signature does not hold");
  }
  if (ReceiptBatch check = CheckSignedTime("Mailgun", timestamp, now, max_skew); !check.ok()) {
    return check;
  }
  const nlohmann::json* event_data = Member(hook, "event-data");
  if (event_data == nullptr || !event_data->is_object()) {
    return ReceiptBatch::Refused(Refusal::kMalformed,
                                 "a Mailgun webhook needs an event-data object");
  }

  ReceiptBatch batch;
  batch.replay_key = token;
  const std::string id =
      MailgunStoredMessageId(Text(Object(Object(*event_data, "message"), "headers"), "message-id"));
  if (id.empty()) {
    batch.skipped = 1;
    return batch;
  }
  EmailReceipt receipt = Mapped(*event_data);
  receipt.provider = "mailgun";
  receipt.provider_message_id = id;
  receipt.recipient = Text(*event_data, "recipient");
  receipt.at = UnixTimeMember(*event_data, "timestamp", now);
  (void)batch.Add(std::move(receipt));
  return batch;
}

}  // namespace chopar::channels::email::receipts
