#include "http/user_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {

nlohmann::json UserView(const hub::User& user) {
  nlohmann::json channels = nlohmann::json::object();
  for (const core::ChannelKind kind : core::AllChannels()) {
    channels[std::string(core::ChannelName(kind))] = user.reachable[kind];
  }
  nlohmann::json addresses = nlohmann::json::object();
  for (const auto& [channel, address] : user.addresses) addresses[channel] = address;
  return {
      {"id", user.id},
      {"email", OrNull(user.email)},
      {"phone", OrNull(user.phone)},
      {"timezone", user.timezone},
      {"locale", user.locale},
      {"preferences", user.preferences},
      {"quiet_hours", user.quiet_hours ? nlohmann::json{{"start", user.quiet_hours->start},
                                                        {"end", user.quiet_hours->end}}
                                       : nlohmann::json(nullptr)},
      {"admin", user.admin},
      {"data", user.data},
      {"telegram", user.telegram ? nlohmann::json{{"chat_id", user.telegram->chat_id},
                                                  {"active", user.telegram->active}}
                                 : nlohmann::json(nullptr)},
      {"addresses", std::move(addresses)},
      {"channels", std::move(channels)},
      {"tenants", user.tenants},
      {"created_at", TimeView(user.created_at)},
      {"updated_at", TimeView(user.updated_at)},
  };
}

nlohmann::json TelegramView(std::int64_t user_id, const hub::TelegramConnection& telegram) {
  return {{"user_id", user_id}, {"chat_id", telegram.chat_id}, {"active", telegram.active}};
}

}  // namespace chopar::http
