#include "console/directory.hpp"

#include <vector>

#include "console/page.hpp"
#include "console/queries.hpp"
#include "core/request_error.hpp"
#include "db/params.hpp"
#include "db/time_column.hpp"
#include "hub/queries.hpp"

namespace chopar::console {

core::Page<hub::User> ListUsers(db::Pool& pool, hub::UserService& users, int limit,
                                const std::optional<std::string>& cursor) {
  CheckLimit(limit, 100);
  const std::int64_t after = cursor ? DecodeIdCursor(*cursor) : 0;
  const auto ids = pool.Acquire()->Exec(queries::kListUserIds, after, limit + 1);
  std::vector<std::int64_t> shown;
  for (int i = 0; i < ShownRows(ids, limit); ++i) shown.push_back(ids.Int(i, "id"));
  return {users.GetUsers(shown), NextCursor(ids, limit, "id")};
}

std::vector<PushSubscription> ListPushSubscriptions(db::Pool& pool, std::int64_t user_id) {
  auto conn = pool.Acquire();
  if (conn->Exec(hub::queries::kUserExists, user_id).Empty()) throw core::UserNotFound(user_id);
  const auto rows = conn->Exec(queries::kListPushSubscriptions, user_id);
  std::vector<PushSubscription> subscriptions;
  for (int i = 0; i < rows.Rows(); ++i) {
    subscriptions.push_back({.id = rows.Int(i, "id"),
                             .endpoint = rows.String(i, "endpoint"),
                             .created_at = db::TimeColumn(rows, i, "created_at")});
  }
  return subscriptions;
}

core::Page<schedule::Schedule> ListSchedules(db::Pool& pool, std::optional<std::int64_t> user_id,
                                             int limit, const std::optional<std::string>& cursor) {
  CheckLimit(limit, 200);
  const std::string after = cursor ? DecodeKeyCursor(*cursor) : std::string();
  const auto rows = pool.Acquire()->Exec(queries::kListSchedules, user_id, limit + 1, after);
  return PageOf(rows, limit, "key", schedule::ReadSchedule);
}

}  // namespace chopar::console
