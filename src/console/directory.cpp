#include "console/directory.hpp"

#include <vector>

#include "console/page.hpp"
#include "console/queries.hpp"
#include "core/request_error.hpp"
#include "db/params.hpp"
#include "hub/queries.hpp"
#include "hub/user_json.hpp"

namespace chopar::console {

nlohmann::json ListUsers(db::Pool& pool, int limit, const std::optional<std::string>& cursor) {
  CheckLimit(limit, 100);
  const std::int64_t after = cursor ? DecodeIdCursor(*cursor) : 0;
  auto conn = pool.Acquire();
  const auto ids = conn->Exec(queries::kListUserIds, after, limit + 1);
  std::vector<std::int64_t> shown;
  for (int i = 0; i < ShownRows(ids, limit); ++i) shown.push_back(ids.Int(i, "id"));
  // The page's users through the statement of GET /v1/users/{id}, so both
  // show one shape: two statements a page.
  nlohmann::json items = nlohmann::json::array();
  const auto users = conn->Exec(hub::queries::kGetUsers, db::ArrayLiteral(shown));
  for (int i = 0; i < users.Rows(); ++i) items.push_back(hub::UserJson(users, i));
  return {{"items", std::move(items)}, {"next_cursor", NextCursor(ids, limit, "id")}};
}

nlohmann::json ListPushSubscriptions(db::Pool& pool, std::int64_t user_id) {
  auto conn = pool.Acquire();
  if (conn->Exec(hub::queries::kUserExists, user_id).Empty()) throw core::UserNotFound(user_id);
  const auto rows = conn->Exec(queries::kListPushSubscriptions, user_id);
  nlohmann::json items = nlohmann::json::array();
  for (int i = 0; i < rows.Rows(); ++i) items.push_back(nlohmann::json::parse(rows.Text(i, "doc")));
  return {{"items", std::move(items)}};
}

nlohmann::json ListSchedules(db::Pool& pool, std::optional<std::int64_t> user_id, int limit,
                             const std::optional<std::string>& cursor) {
  CheckLimit(limit, 200);
  const std::string after = cursor ? DecodeKeyCursor(*cursor) : std::string();
  auto conn = pool.Acquire();
  const auto rows = conn->Exec(queries::kListSchedules, user_id, limit + 1, after);
  return PageOf(rows, limit, "key");
}

}  // namespace chopar::console
