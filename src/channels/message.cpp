#include "channels/channel.hpp"

namespace chopar::channels {

std::optional<std::string> MissingAddress(const Message& message) {
  switch (message.channel) {
    case core::ChannelKind::kEmail:
      if (!message.email) return "no email address";
      break;
    case core::ChannelKind::kSms:
      if (!message.phone) return "no phone number";
      break;
    case core::ChannelKind::kTelegram:
      if (!message.telegram_chat_id) return "no active Telegram connection";
      break;
    case core::ChannelKind::kPush:
      if (message.push_targets.empty()) return "no push subscription";
      break;
  }
  return std::nullopt;
}

std::string DeliveryIdHeader(std::int64_t delivery_id) {
  return "X-Chopar-Delivery-Id: " + std::to_string(delivery_id);
}

}  // namespace chopar::channels
