#include <unistd.h>

#include "channels/channel.hpp"

namespace chopar::channels {

void ApplyChannelTexts(Message& message, const nlohmann::json& block) {
  if (!block.is_object()) return;
  if (const auto branding = block.find("branding");
      branding != block.end() && branding->is_object()) {
    const auto member = [&](const char* name) -> std::optional<std::string> {
      const auto it = branding->find(name);
      if (it == branding->end() || !it->is_string() || it->get<std::string>().empty())
        return std::nullopt;
      return it->get<std::string>();
    };
    message.branding = Branding{member("logo_url"), member("primary_color"), member("sender_name"),
                                member("footer")};
  }
  if (const auto layout = block.find("layout"); layout != block.end() && layout->is_object()) {
    const auto key = layout->find("key");
    const auto tenant = layout->find("tenant");
    if (key != layout->end() && key->is_string()) message.layout_key = key->get<std::string>();
    if (tenant != layout->end() && tenant->is_string())
      message.layout_tenant = tenant->get<std::string>();
  }
  for (const core::MessageField& field : core::InfoOf(message.channel).fields) {
    const auto it = block.find(field.key);
    if (it == block.end() || !it->is_string()) continue;
    std::string text = it->get<std::string>();
    if (field.key == "subject") {
      message.subject = std::move(text);
    } else if (field.key == "html") {
      message.html = std::move(text);
    } else if (field.key == "text") {
      message.text = std::move(text);
    } else if (field.key == "title") {
      message.title = std::move(text);
    } else if (field.key == "body") {
      message.body = std::move(text);
    }
  }
}

std::optional<std::string> MissingAddress(const Message& message) {
  const core::ChannelInfo& info = core::InfoOf(message.channel);
  switch (core::StoreOf(info)) {
    case core::AddressStore::kEmail:
      if (!message.email) return "no email address";
      break;
    case core::AddressStore::kPhone:
      if (!message.phone) return "no phone number";
      break;
    case core::AddressStore::kTelegramChat:
      if (!message.telegram_chat_id) return "no active Telegram connection";
      break;
    case core::AddressStore::kPushSubscription:
      if (message.push_targets.empty()) return "no push subscription";
      break;
    case core::AddressStore::kDevice:
      if (message.device_targets.empty()) return "no mobile device";
      break;
    case core::AddressStore::kUser:
      if (!message.address) return "no " + std::string(info.address) + " address";
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
