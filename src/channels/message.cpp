#include "channels/channel.hpp"

#include <unistd.h>

namespace chopar::channels {

void ApplyChannelTexts(Message& message, const nlohmann::json& block) {
  if (!block.is_object()) return;
  auto take = [&](const char* key, auto& into) {
    const auto it = block.find(key);
    if (it != block.end() && it->is_string()) into = it->template get<std::string>();
  };
  switch (message.channel) {
    case core::ChannelKind::kEmail:
      take("subject", message.subject);
      take("html", message.html);
      take("text", message.text);
      break;
    case core::ChannelKind::kPush:
      take("title", message.title);
      take("body", message.body);
      break;
    case core::ChannelKind::kTelegram:
    case core::ChannelKind::kSms:
      take("text", message.text);
      break;
  }
}

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

void AddDeliveryHeaders(std::vector<std::string>& headers, std::int64_t delivery_id) {
  static const std::string instance = "X-Chopar-Instance: " + std::to_string(::getpid());
  headers.push_back(DeliveryIdHeader(delivery_id));
  headers.push_back(instance);
}

}  // namespace chopar::channels
