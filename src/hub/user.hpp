#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/result.hpp"
#include "hub/user_request.hpp"

namespace chopar::hub {

// A user's Telegram chat (PUT /v1/users/{id}/telegram, or the connect flow).
struct TelegramConnection {
  std::int64_t chat_id = 0;
  bool active = true;  // false after the user blocked the bot
};

// A user as stored, with what can reach them now (docs/api.md "The user
// object"; http::UserView is its JSON). A value.
struct User {
  std::int64_t id = 0;
  std::optional<std::string> email;
  std::optional<std::string> phone;  // E.164
  std::string timezone = "UTC";
  std::string locale = "en";
  // The stored preferences document (docs/api.md "Preferences by category
  // and type"): a JSON object by definition, read by ChannelEnabled.
  nlohmann::json preferences = nlohmann::json::object();
  std::optional<QuietHours> quiet_hours;
  bool admin = false;
  // Custom attributes (UserUpdate::data): a JSON object.
  nlohmann::json data = nlohmann::json::object();
  std::optional<TelegramConnection> telegram;
  // Addresses on channels whose address is kept in user_addresses
  // (core::AddressStore::kUser), by channel name.
  std::map<std::string, std::string, std::less<>> addresses;
  // The tenants the user belongs to, by key.
  std::vector<std::string> tenants;
  // Whether each registered channel has an address to deliver to now.
  core::PerChannel<bool> reachable;
  core::TimePoint created_at;
  core::TimePoint updated_at;
};

// The user of row `row` of queries/get_users.sql.
User ReadUser(const db::Result& rows, int row);

}  // namespace chopar::hub
