#include "hub/device.hpp"

#include <algorithm>

#include "core/request_error.hpp"
#include "db/time_column.hpp"
#include "hub/queries.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {
namespace {

bool TokenCharacter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '_' || c == ':' || c == '.' || c == '=' || c == '+' || c == '/' || c == '-';
}

bool AppCharacter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-';
}

Device ReadDevice(const db::Result& rows, int row) {
  return {rows.Int(row, "id"),
          rows.String(row, "platform"),
          rows.String(row, "token"),
          rows.String(row, "app"),
          db::TimeColumn(rows, row, "created_at"),
          db::TimeColumn(rows, row, "updated_at")};
}

}  // namespace

DeviceInput ParseDevice(const nlohmann::json& body) {
  RequireObject(body);
  for (const auto& [key, value] : body.items()) {
    if (key != "platform" && key != "token" && key != "app") {
      throw core::InvalidField(key, "unknown member \"" + key +
                                        "\"; a device has platform, token and app");
    }
  }
  DeviceInput device;
  device.platform = RequireString(body, "platform", 1, 16);
  if (device.platform != "android" && device.platform != "ios" && device.platform != "web") {
    throw core::InvalidField("platform", "platform must be android, ios or web");
  }
  device.token = RequireString(body, "token", 8, 4096);
  if (!std::all_of(device.token.begin(), device.token.end(), TokenCharacter)) {
    throw core::InvalidField("token",
                             "token must be the FCM registration token or APNs device token, "
                             "letters, digits and _:.=+/- only");
  }
  device.app = OptionalString(body, "app", 0, 255).value_or("");
  if (!std::all_of(device.app.begin(), device.app.end(), AppCharacter)) {
    throw core::InvalidField("app", "app must be letters, digits, '_', '.' and '-' (a bundle id)");
  }
  return device;
}

DeviceService::Added DeviceService::Add(std::int64_t user_id, const DeviceInput& input,
                                        TokenOfAnother token_of_another) const {
  auto tx = pool_.Begin("add_device");
  // The user's row is locked so that two requests at once cannot both take
  // the last place.
  if (const auto locked = tx.Exec(queries::kLockUserTimezone, user_id);
      locked.Empty() || locked.Bool(0, "erasing")) {
    throw core::UserNotFound(user_id);
  }
  if (tx.Exec(queries::kCountOtherDevices, user_id, input.token).Int(0, 0) >= kMaxDevicesPerUser) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "user " + std::to_string(user_id) + " already has " +
                                 std::to_string(kMaxDevicesPerUser) +
                                 " devices, the most allowed; delete one first");
  }
  const auto row = tx.Exec(queries::kUpsertDevice, user_id, input.platform, input.token, input.app,
                           token_of_another == TokenOfAnother::kMove);
  if (row.Empty()) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "this device token is registered by another user; a subscriber "
                             "token cannot take it over");
  }
  tx.Commit();
  return {ReadDevice(row, 0), row.Bool(0, "created")};
}

std::vector<Device> DeviceService::List(std::int64_t user_id) const {
  const auto rows = pool_.Acquire()->Exec(queries::kListDevices, user_id);
  if (rows.Empty()) throw core::UserNotFound(user_id);
  std::vector<Device> devices;
  for (int i = 0; i < rows.Rows(); ++i) {
    if (!rows.IsNull(i, "id")) devices.push_back(ReadDevice(rows, i));
  }
  return devices;
}

void DeviceService::Delete(std::int64_t user_id, std::int64_t device_id) const {
  if (pool_.Acquire()->Exec(queries::kDeleteDevice, user_id, device_id).AffectedRows() == 0) {
    throw core::NotFound("device " + std::to_string(device_id) + " of user " +
                         std::to_string(user_id) + " does not exist");
  }
}

}  // namespace chopar::hub
