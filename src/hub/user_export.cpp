#include "hub/user_export.hpp"

#include "db/time_column.hpp"
#include "hub/queries.hpp"

namespace chopar::hub {

std::vector<std::int64_t> UserExportReader::NotificationIds(std::int64_t user_id,
                                                            std::optional<std::int64_t> before,
                                                            int limit) const {
  const auto rows = pool_.Acquire()->Exec(queries::kExportNotificationIds, user_id, before, limit);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < rows.Rows(); ++i) ids.push_back(rows.Int(i, "id"));
  return ids;
}

std::vector<UserExportReader::TopicMembership> UserExportReader::Topics(std::int64_t user_id,
                                                                        int limit) const {
  const auto rows = pool_.Acquire()->Exec(queries::kExportTopics, user_id, limit);
  std::vector<TopicMembership> topics;
  for (int i = 0; i < rows.Rows(); ++i) {
    topics.push_back({rows.String(i, "key"), rows.String(i, "name"), rows.OptString(i, "tenant"),
                      db::TimeColumn(rows, i, "subscribed_at")});
  }
  return topics;
}

std::vector<UserExportReader::DelayedNotification> UserExportReader::Delayed(std::int64_t user_id,
                                                                             int limit) const {
  const auto rows = pool_.Acquire()->Exec(queries::kExportDelayed, user_id, limit);
  std::vector<DelayedNotification> delayed;
  for (int i = 0; i < rows.Rows(); ++i) {
    delayed.push_back({rows.Int(i, "id"), rows.Int(i, "notification_id"),
                       db::TimeColumn(rows, i, "due_at"), rows.String(i, "request"),
                       static_cast<int>(rows.Int(i, "request_version")),
                       db::OptTimeColumn(rows, i, "failed_at"), rows.OptString(i, "last_error")});
  }
  return delayed;
}

}  // namespace chopar::hub
