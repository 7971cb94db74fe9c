#include "hub/user_service.hpp"

#include <algorithm>
#include <vector>

#include "core/request_error.hpp"
#include "db/params.hpp"
#include "hub/preferences.hpp"
#include "hub/queries.hpp"

namespace chopar::hub {
namespace {

// The parameters of upsert_user.sql: per member whether it changes, then its
// value ($N_set, $N), in the statement's order.
db::Params UpsertParams(std::int64_t user_id, const UserUpdate& update) {
  const auto& preferences = update.preferences;
  std::optional<std::string> merged_preferences;
  if (preferences.changes && preferences.value) merged_preferences = preferences.value->dump();
  const auto& quiet = update.quiet_hours.value;
  db::Params params;
  params.Add(user_id)
      .Add(update.email.changes)
      .Add(update.email.value)
      .Add(update.phone.changes)
      .Add(update.phone.value)
      .Add(update.timezone.changes)
      .Add(update.timezone.value)
      .Add(update.locale.changes)
      .Add(update.locale.value)
      .Add(merged_preferences)
      .Add(update.quiet_hours.changes)
      .Add(quiet ? std::optional(quiet->start) : std::nullopt)
      .Add(quiet ? std::optional(quiet->end) : std::nullopt)
      .Add(update.admin.changes)
      .Add(update.admin.value)
      .Add(preferences.changes && !preferences.value)
      .Add(update.data.changes && update.data.value ? std::optional(update.data.value->dump())
                                                    : std::nullopt)
      .Add(update.data.changes && !update.data.value);
  return params;
}

// The "addresses" of a PUT: merged channel by channel, or (nullopt) all removed.
void WriteAddresses(db::Transaction& tx, std::int64_t user_id,
                    const std::optional<UserAddresses>& addresses) {
  std::vector<std::string> set_channels, set_addresses, removed;
  if (addresses) {
    for (const auto& [channel, address] : *addresses) {
      if (address) {
        set_channels.push_back(channel);
        set_addresses.push_back(*address);
      } else {
        removed.push_back(channel);
      }
    }
  }
  tx.Exec(queries::kPutUserAddresses, user_id, !addresses, db::ArrayLiteral(set_channels),
          db::ArrayLiteral(set_addresses), db::ArrayLiteral(removed));
}

// The tenants of a PUT: every one must exist; then they are the user's.
void WriteTenants(db::Transaction& tx, std::int64_t user_id,
                  const std::vector<std::string>& tenants) {
  const auto keys = db::ArrayLiteral(tenants);
  if (const auto unknown = tx.Exec(queries::kUnknownTenant, keys); !unknown.Empty()) {
    const std::string field = "tenants[" + std::to_string(unknown.Int(0, "position")) + "]";
    throw core::InvalidField(field, field + " is not a tenant");
  }
  tx.Exec(queries::kSetUserTenants, user_id, keys);
}

}  // namespace

User UserService::PutUser(std::int64_t user_id, const UserUpdate& update,
                          const std::optional<std::string>& confined) {
  const db::Params params = UpsertParams(user_id, update);
  if (confined && update.tenants.changes &&
      (!update.tenants.value || *update.tenants.value != std::vector{*confined})) {
    throw core::Forbidden("a key confined to tenant " + *confined +
                          " can only name that tenant in tenants");
  }
  auto tx = pool_.Begin("put_user");
  const auto before = tx.Exec(queries::kLockUserTimezone, user_id);
  if (!before.Empty() && before.Bool(0, "erasing")) throw core::ErasurePending(user_id);
  if (confined && !before.Empty() && tx.Exec(queries::kUserInTenant, user_id, *confined).Empty()) {
    throw core::UserNotFound(user_id);
  }
  if (update.preferences.changes && update.preferences.value) {
    // The merge itself is the upsert's; what it will store is checked here,
    // the row locked, so that a merge over the bounds is refused by name.
    const auto stored = tx.Exec(queries::kLockPreferences, user_id);
    CheckStoredPreferences(
        MergedPreferences(stored.Empty() ? nlohmann::json::object()
                                         : nlohmann::json::parse(stored.Text(0, "preferences")),
                          *update.preferences.value),
        "preferences");
  }
  if (update.data.changes && update.data.value) {
    const auto merged = tx.Exec(queries::kMergedDataBytes, user_id, update.data.value->dump());
    if (merged.Int(0, "bytes") > static_cast<std::int64_t>(kMaxUserDataBytes)) {
      throw core::InvalidField("data", "data would be " + std::to_string(merged.Int(0, "bytes")) +
                                           " bytes once merged, over the " +
                                           std::to_string(kMaxUserDataBytes) + " allowed");
    }
  }
  const auto upserted = tx.Exec(queries::kUpsertUser, params);
  // Created by another caller since the lock found nothing: not this key's.
  if (confined && before.Empty() && !upserted.Bool(0, "inserted")) {
    throw core::UserNotFound(user_id);
  }
  if (update.addresses.changes) WriteAddresses(tx, user_id, update.addresses.value);
  if (confined) {
    tx.Exec(queries::kAddUserTenant, user_id, *confined);
  } else if (update.tenants.changes) {
    WriteTenants(tx, user_id, update.tenants.value.value_or(std::vector<std::string>{}));
  }
  const auto rows = tx.Exec(queries::kGetUsers, db::ArrayLiteral(std::vector{user_id}));
  if (!before.Empty() && before.Text(0, 0) != rows.Text(0, "timezone") &&
      options_.timezone_changed) {
    options_.timezone_changed(tx, user_id);
  }
  tx.Commit();
  return ReadUser(rows, 0);
}

User UserService::GetUser(std::int64_t user_id, const std::optional<std::string>& confined) {
  std::vector<User> users = GetUsers(std::span(&user_id, 1));
  if (users.empty()) throw core::UserNotFound(user_id);
  if (confined &&
      std::ranges::find(users.front().tenants, *confined) == users.front().tenants.end())
    throw core::UserNotFound(user_id);
  return std::move(users.front());
}

bool UserService::InTenant(std::int64_t user_id, const std::string& tenant) {
  return !pool_.Acquire()->Exec(queries::kUserInTenant, user_id, tenant).Empty();
}

void UserService::RequireUser(std::int64_t user_id, const std::optional<std::string>& confined) {
  auto conn = pool_.Acquire();
  const auto found = confined ? conn->Exec(queries::kUserInTenant, user_id, *confined)
                              : conn->Exec(queries::kUserExists, user_id);
  if (found.Empty()) throw core::UserNotFound(user_id);
}

std::vector<User> UserService::GetUsers(std::span<const std::int64_t> ids) {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kGetUsers,
                               db::ArrayLiteral(std::vector<std::int64_t>(ids.begin(), ids.end())));
  std::vector<User> users;
  users.reserve(static_cast<std::size_t>(rows.Rows()));
  for (int i = 0; i < rows.Rows(); ++i) users.push_back(ReadUser(rows, i));
  return users;
}

TelegramConnection UserService::PutTelegram(std::int64_t user_id, const TelegramChat& chat) {
  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kUpsertTelegram, user_id, chat.chat_id).Empty()) {
    throw core::UserNotFound(user_id);
  }
  return {chat.chat_id, true};
}

void UserService::DeleteTelegram(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kUserExists, user_id).Empty()) throw core::UserNotFound(user_id);
  conn->Exec(queries::kDeleteTelegram, user_id);
}

UserService::Subscription UserService::AddPushSubscription(std::int64_t user_id,
                                                           const PushSubscription& subscription,
                                                           EndpointOfAnother endpoint_of_another) {
  auto tx = pool_.Begin("add_push_subscription");
  // The user's row is locked so that two requests at once cannot both take
  // the last place.
  if (const auto locked = tx.Exec(queries::kLockUserTimezone, user_id);
      locked.Empty() || locked.Bool(0, "erasing")) {
    throw core::UserNotFound(user_id);
  }
  const auto others =
      tx.Exec(queries::kCountOtherPushSubscriptions, user_id, subscription.endpoint);
  if (others.Int(0, 0) >= options_.max_push_subscriptions) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "user " + std::to_string(user_id) + " already has " +
                                 std::to_string(options_.max_push_subscriptions) +
                                 " push subscriptions, the most allowed; delete one first");
  }
  const auto row =
      tx.Exec(queries::kUpsertPushSubscription, user_id, subscription.endpoint, subscription.p256dh,
              subscription.auth, endpoint_of_another == EndpointOfAnother::kMove);
  if (row.Empty()) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "this push endpoint is subscribed by another user; a subscriber "
                             "token cannot take it over");
  }
  tx.Commit();
  return {row.Int(0, "id"), row.Bool(0, "created")};
}

void UserService::DeletePushSubscription(std::int64_t user_id, std::int64_t subscription_id) {
  auto conn = pool_.Acquire();
  if (conn->Exec(queries::kDeletePushSubscription, user_id, subscription_id).AffectedRows() == 0) {
    throw core::NotFound("push subscription " + std::to_string(subscription_id) + " of user " +
                         std::to_string(user_id) + " does not exist");
  }
}

UserService::Preferences UserService::GetPreferences(std::int64_t user_id) {
  const auto rows = pool_.Acquire()->Exec(queries::kGetPreferences, user_id);
  if (rows.Empty()) throw core::UserNotFound(user_id);
  return {nlohmann::json::parse(rows.Text(0, "preferences")), rows.String(0, "locale")};
}

nlohmann::json UserService::MergePreferences(std::int64_t user_id,
                                             const nlohmann::json& preferences) {
  return UpdatePreferences(user_id,
                           [&](nlohmann::json stored) {
                             return MergedPreferences(std::move(stored), preferences);
                           })
      .preferences;
}

UserService::Preferences UserService::UpdatePreferences(
    std::int64_t user_id, const std::function<nlohmann::json(nlohmann::json)>& change) {
  auto tx = pool_.Begin("update_preferences");
  const auto rows = tx.Exec(queries::kLockPreferences, user_id);
  if (rows.Empty()) throw core::UserNotFound(user_id);
  Preferences result{change(nlohmann::json::parse(rows.Text(0, "preferences"))),
                     rows.String(0, "locale")};
  CheckStoredPreferences(result.preferences, "preferences");
  tx.Exec(queries::kSetPreferences, user_id, result.preferences.dump());
  tx.Commit();
  return result;
}

}  // namespace chopar::hub
