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
  user.data = nlohmann::json::parse(rows.Text(row, "data"));
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
  if (!rows.IsNull(row, "tenants")) {
    const std::string tenants = rows.String(row, "tenants");
    std::size_t start = 0;
    while (start <= tenants.size()) {
      const std::size_t comma = tenants.find(',', start);
      user.tenants.push_back(tenants.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  user.reachable = core::ReachableChannels(core::AddressesHeld{
      .email = user.email.has_value(),
      .phone = user.phone.has_value(),
      .telegram_chat = user.telegram && user.telegram->active,
      .push_subscription = rows.Int(row, "push_subscriptions") > 0,
      .device = rows.Int(row, "devices") > 0,
      .own = [&](std::string_view name) { return user.addresses.contains(name); }});
  user.created_at = db::TimeColumn(rows, row, "created_at");
  user.updated_at = db::TimeColumn(rows, row, "updated_at");
  return user;
}

}  // namespace chopar::hub
