#include "hub/user_json.hpp"

#include "core/channel_kind.hpp"
#include "core/time_format.hpp"

namespace chopar::hub {

nlohmann::json TimestampJson(const db::Result& rows, int row, const char* column) {
  if (rows.IsNull(row, column)) return nullptr;
  return core::FormatRfc3339(core::ParsePgTimestamp(rows.Text(row, column)));
}

nlohmann::json UserJson(const db::Result& rows, int row) {
  auto optional = [&](const char* column) -> nlohmann::json {
    if (rows.IsNull(row, column)) return nullptr;
    return rows.String(row, column);
  };
  nlohmann::json quiet_hours = nullptr;
  if (!rows.IsNull(row, "quiet_start")) {
    quiet_hours = {{"start", rows.String(row, "quiet_start")}, {"end", rows.String(row, "quiet_end")}};
  }
  const bool telegram = !rows.IsNull(row, "telegram_active") && rows.Bool(row, "telegram_active");
  const nlohmann::json addresses = rows.IsNull(row, "addresses")
                                       ? nlohmann::json::object()
                                       : nlohmann::json::parse(rows.Text(row, "addresses"));
  // Whether each channel has an address to deliver to.
  nlohmann::json reachable = nlohmann::json::object();
  for (const core::ChannelKind kind : core::AllChannels()) {
    const core::ChannelInfo& info = core::InfoOf(kind);
    bool has = false;
    switch (core::StoreOf(info)) {
      case core::AddressStore::kEmail:
        has = !rows.IsNull(row, "email");
        break;
      case core::AddressStore::kPhone:
        has = !rows.IsNull(row, "phone");
        break;
      case core::AddressStore::kTelegramChat:
        has = telegram;
        break;
      case core::AddressStore::kPushSubscription:
        has = rows.Int(row, "push_subscriptions") > 0;
        break;
      case core::AddressStore::kUser:
        has = addresses.contains(info.name);
        break;
    }
    reachable[std::string(info.name)] = has;
  }
  nlohmann::json user = {
      {"id", rows.Int(row, "id")},
      {"email", optional("email")},
      {"phone", optional("phone")},
      {"timezone", rows.String(row, "timezone")},
      {"locale", rows.String(row, "locale")},
      {"preferences", nlohmann::json::parse(rows.Text(row, "preferences"))},
      {"quiet_hours", quiet_hours},
      {"admin", rows.Bool(row, "admin")},
      {"telegram",
       rows.IsNull(row, "telegram_chat_id")
           ? nlohmann::json(nullptr)
           : nlohmann::json{{"chat_id", rows.Int(row, "telegram_chat_id")}, {"active", telegram}}},
      {"addresses", addresses},
      {"channels", std::move(reachable)},
      {"created_at", TimestampJson(rows, row, "created_at")},
      {"updated_at", TimestampJson(rows, row, "updated_at")},
  };
  return user;
}

}  // namespace chopar::hub
