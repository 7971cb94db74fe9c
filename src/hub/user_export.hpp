#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::hub {

// What GET /v1/users/{id}/export reads that no other route of a user
// shows (docs/api.md "Exporting a user's data"); the rest it reads through
// the services of each kind. Each list is bounded by its `limit`.
// Thread-safe; the pool must outlive it. Throws db::DbError.
class UserExportReader {
 public:
  explicit UserExportReader(db::Pool& pool) : pool_(pool) {}

  // Ids of the user's notifications, in every inbox state, newest first,
  // before `before` (nullopt: from the newest).
  std::vector<std::int64_t> NotificationIds(std::int64_t user_id,
                                            std::optional<std::int64_t> before, int limit) const;

  struct TopicMembership {
    std::string topic;
    std::string name;
    std::optional<std::string> tenant;
    core::TimePoint subscribed_at;
  };
  // The topics the user is subscribed to, in key order.
  std::vector<TopicMembership> Topics(std::int64_t user_id, int limit) const;

  // A delayed notification as asked for (its stored request, versioned:
  // hub/stored_request.hpp), not released yet.
  struct DelayedNotification {
    std::int64_t id = 0;
    std::int64_t notification_id = 0;  // the id it gets when released
    core::TimePoint due_at;
    std::string request_json;
    int request_version = 0;
    std::optional<core::TimePoint> failed_at;  // kept as failed (never released)
    std::optional<std::string> last_error;
  };
  // The user's delayed notifications, earliest due first.
  std::vector<DelayedNotification> Delayed(std::int64_t user_id, int limit) const;

 private:
  db::Pool& pool_;
};

}  // namespace chopar::hub
