#include "channels/email/receipts/sendgrid_events.hpp"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/email/receipts/json_fields.hpp"
#include "channels/email/receipts/signature_check.hpp"
#include "channels/email/receipts/signed_time.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "core/text.hpp"

namespace chopar::channels::email::receipts {
namespace {

// The receipt an event stands for; its id, address and time are filled in
// by the caller.
EmailReceipt Mapped(const nlohmann::json& event) {
  const std::string name = Text(event, "event");
  const std::string reason = Text(event, "reason");
  EmailReceipt receipt;
  receipt.detail = name;
  if (name == "delivered") {
    receipt.kind = ReceiptKind::kDelivered;
    receipt.detail = Text(event, "response");
  } else if (name == "bounce") {
    const std::string type = Text(event, "type");
    receipt.kind = ReceiptKind::kBounced;
    receipt.permanent = type != "blocked";
    receipt.detail = type.empty() ? "bounce" : type;
    for (const std::string& part : {Text(event, "status"), reason}) {
      if (!part.empty()) receipt.detail += " " + part;
    }
  } else if (name == "dropped") {
    receipt.kind = ReceiptKind::kBounced;
    receipt.permanent = reason == "Bounced Address" || reason == "Invalid";
    receipt.detail = "dropped: " + reason;
  } else if (name == "spamreport") {
    receipt.kind = ReceiptKind::kComplained;
  } else if (name == "deferred") {
    receipt.detail = "deferred: " + Text(event, "response");
  }
  receipt.detail = ShortDetail(receipt.detail);
  return receipt;
}

}  // namespace

SendGridVerificationKey::SendGridVerificationKey(std::string_view base64_der) {
  const auto der = core::Base64Decode(core::TrimWhitespace(base64_der));
  if (der && !der->empty()) {
    const auto* cursor = reinterpret_cast<const unsigned char*>(der->data());
    key_.reset(d2i_PUBKEY(nullptr, &cursor, static_cast<long>(der->size())));
  }
  ERR_clear_error();
  if (!key_ || EVP_PKEY_is_a(key_.get(), "EC") != 1 || EVP_PKEY_get_bits(key_.get()) != 256) {
    throw std::invalid_argument(
        "the SendGrid verification key must be the base64 P-256 public key SendGrid shows");
  }
}

bool SendGridSignatureValid(const SendGridVerificationKey& key, std::string_view timestamp,
                            std::string_view body, std::string_view signature_base64) {
  const auto signature = core::Base64Decode(core::TrimWhitespace(signature_base64));
  if (!signature || signature->empty()) return false;
  std::string signed_text;
  signed_text.reserve(timestamp.size() + body.size());
  signed_text.append(timestamp).append(body);
  return SignatureHolds(key.get(), EVP_sha256(), signed_text, *signature);
}

std::string SendGridStoredMessageId(std::string_view sg_message_id) {
  return std::string(sg_message_id.substr(0, sg_message_id.find('.')));
}

ReceiptBatch VerifiedSendGridReceipts(const SendGridVerificationKey& key,
                                      std::string_view timestamp_header,
                                      std::string_view signature_header, std::string_view body,
                                      core::TimePoint now, std::chrono::seconds max_skew) {
  if (body.size() > kMaxReceiptBodyBytes) {
    return ReceiptBatch::TooLarge("the SendGrid webhook");
  }
  // The header's value is signed as it came; only the time read from it is trimmed.
  if (!SendGridSignatureValid(key, timestamp_header, body, signature_header)) {
    return ReceiptBatch::Refused(Refusal::kUnauthenticated, "the SendGrid signature does not hold");
  }
  if (ReceiptBatch check =
          CheckSignedTime("SendGrid", core::TrimWhitespace(timestamp_header), now, max_skew);
      !check.ok()) {
    return check;
  }
  const nlohmann::json events = core::ParseJsonOrDiscarded(body);
  if (!events.is_array()) {
    return ReceiptBatch::Refused(Refusal::kMalformed, "a SendGrid webhook is a JSON array");
  }
  ReceiptBatch batch;
  batch.replay_key = std::string(core::TrimWhitespace(signature_header));
  for (const auto& event : events) {
    if (!event.is_object()) {
      return ReceiptBatch::Refused(Refusal::kMalformed, "a SendGrid event is a JSON object");
    }
    const std::string id = SendGridStoredMessageId(Text(event, "sg_message_id"));
    if (id.empty()) {
      ++batch.skipped;
      continue;
    }
    EmailReceipt receipt = Mapped(event);
    receipt.provider = "sendgrid";
    receipt.provider_message_id = id;
    receipt.recipient = Text(event, "email");
    receipt.at = UnixTimeMember(event, "timestamp", now);
    if (!batch.Add(std::move(receipt))) return batch;
  }
  return batch;
}

}  // namespace chopar::channels::email::receipts
