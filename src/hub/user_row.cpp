#include "db/time_column.hpp"
#include "hub/user.hpp"

namespace chopar::hub {

User ReadUser(const db::Result& rows, int row) {
  User user;
  user.id = rows.Int(row, "id");
  user.email = rows.OptString(row, "email");
  user.phone = rows.OptString(row, "phone");
  user.timezone = rows.String(row, "timezone");
  user.locale = rows.String(row, "locale");
  user.preferences = nlohmann::json::parse(rows.Text(row, "preferences"));
  if (!rows.IsNull(row, "quiet_start")) {
    user.quiet_hours = QuietHours{rows.String(row, "quiet_start"), rows.String(row, "quiet_end")};
  }
  user.admin = rows.Bool(row, "admin");
  if (!rows.IsNull(row, "telegram_chat_id")) {
    user.telegram = TelegramConnection{
        rows.Int(row, "telegram_chat_id"),
        !rows.IsNull(row, "telegram_active") && rows.Bool(row, "telegram_active")};
  }
  if (!rows.IsNull(row, "addresses")) {
    const nlohmann::json addresses = nlohmann::json::parse(rows.Text(row, "addresses"));
    for (auto it = addresses.begin(); it != addresses.end(); ++it) {
      user.addresses.emplace(it.key(), it->get<std::string>());
    }
  }
  for (const core::ChannelKind kind : core::AllChannels()) {
    const core::ChannelInfo& info = core::InfoOf(kind);
    switch (core::StoreOf(info)) {
      case core::AddressStore::kEmail:
        user.reachable[kind] = user.email.has_value();
        break;
      case core::AddressStore::kPhone:
        user.reachable[kind] = user.phone.has_value();
        break;
      case core::AddressStore::kTelegramChat:
        user.reachable[kind] = user.telegram && user.telegram->active;
        break;
      case core::AddressStore::kPushSubscription:
        user.reachable[kind] = rows.Int(row, "push_subscriptions") > 0;
        break;
      case core::AddressStore::kUser:
        user.reachable[kind] = user.addresses.contains(info.name);
        break;
    }
  }
  user.created_at = db::TimeColumn(rows, row, "created_at");
  user.updated_at = db::TimeColumn(rows, row, "updated_at");
  return user;
}

}  // namespace chopar::hub
