#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::hub {

// A user's mobile device: the token its app got from FCM (Android, web, or
// iOS through Firebase) or from APNs (iOS), the address of the `mobile`
// channel (docs/api.md "Mobile push").
struct DeviceInput {
  std::string platform;  // "android", "ios" or "web"
  std::string token;     // 8 to 4096 of [A-Za-z0-9_:.=+/-]
  std::string app;       // "" or up to 255 of [A-Za-z0-9_.-]
};

// {"platform", "token", "app"?}: throws core::RequestError kInvalidJson for
// a body that is not an object, kInvalidField naming the member otherwise
// (an unknown member included). Pure; thread-safe.
DeviceInput ParseDevice(const nlohmann::json& body);

struct Device {
  std::int64_t id = 0;
  std::string platform;
  std::string token;
  std::string app;
  core::TimePoint created_at;
  core::TimePoint updated_at;
};

// The devices of users (docs/api.md "Mobile push"). Thread-safe.
class DeviceService {
 public:
  // Devices one user may have; one more is 409 conflict (the same token
  // again is never refused).
  static constexpr int kMaxDevicesPerUser = 10;

  explicit DeviceService(db::Pool& pool) : pool_(pool) {}

  // Whether a device may take a token another user has: the server key may
  // (the phone now belongs to this user); a subscriber token may not.
  enum class TokenOfAnother { kMove, kRefuse };
  struct Added {
    Device device;
    bool created;
  };
  // POST /v1/users/{id}/devices (kMove), POST /v1/inbox/devices (kRefuse).
  // The same token again keeps its id and takes the new platform and app
  // (created = false). Throws core::RequestError kUserNotFound, kConflict
  // when the user has kMaxDevicesPerUser others, or under kRefuse when
  // another user has the token (nothing changes).
  Added Add(std::int64_t user_id, const DeviceInput& input, TokenOfAnother token_of_another) const;
  // GET /v1/users/{id}/devices, oldest first; kUserNotFound.
  [[nodiscard]] std::vector<Device> List(std::int64_t user_id) const;
  // DELETE /v1/users/{id}/devices/{device_id}; kNotFound if not the user's.
  void Delete(std::int64_t user_id, std::int64_t device_id) const;

 private:
  db::Pool& pool_;
};

}  // namespace chopar::hub
