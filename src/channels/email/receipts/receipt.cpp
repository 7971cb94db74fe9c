#include "channels/email/receipts/receipt.hpp"

#include "core/text.hpp"

namespace chopar::channels::email::receipts {

std::string_view ReceiptKindName(ReceiptKind kind) {
  switch (kind) {
    case ReceiptKind::kDelivered:
      return "delivered";
    case ReceiptKind::kBounced:
      return "bounced";
    case ReceiptKind::kComplained:
      return "complained";
    case ReceiptKind::kOther:
      return "other";
  }
  return "other";
}

std::string_view RefusalName(Refusal refusal) {
  switch (refusal) {
    case Refusal::kNone:
      return "";
    case Refusal::kTooLarge:
      return "too_large";
    case Refusal::kMalformed:
      return "malformed";
    case Refusal::kUnauthenticated:
      return "unauthenticated";
    case Refusal::kStale:
      return "stale";
    case Refusal::kTooMany:
      return "too_many";
  }
  return "";
}

ReceiptBatch ReceiptBatch::Refused(Refusal refusal, std::string reason) {
  ReceiptBatch batch;
  batch.refusal = refusal;
  batch.reason = std::move(reason);
  return batch;
}

ReceiptBatch ReceiptBatch::TooLarge(std::string_view what) {
  return Refused(Refusal::kTooLarge,
                 std::string(what) + " is over " + std::to_string(kMaxReceiptBodyBytes) + " bytes");
}

bool ReceiptBatch::Add(EmailReceipt receipt) {
  if (receipts.size() >= kMaxReceiptsPerWebhook) {
    refusal = Refusal::kTooMany;
    reason = "more than " + std::to_string(kMaxReceiptsPerWebhook) + " receipts in one webhook";
    receipts.clear();
    return false;
  }
  receipts.push_back(std::move(receipt));
  return true;
}

std::string ShortDetail(std::string_view text) {
  text = core::TrimWhitespace(text);
  std::size_t end = text.size();
  if (end > kMaxDetailBytes) {
    end = kMaxDetailBytes;
    // Back off to the first byte of a code point, so no character is split.
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  }
  std::string out(text.substr(0, end));
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) c = ' ';
  }
  return out;
}

}  // namespace chopar::channels::email::receipts
