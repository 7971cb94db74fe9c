#include "broadcast/topic_service.hpp"

#include <algorithm>

#include "broadcast/queries.hpp"
#include "core/request_error.hpp"
#include "db/time_column.hpp"
#include "hub/cursor.hpp"
#include "hub/validation.hpp"

namespace chopar::broadcast {
namespace {

core::RequestError TopicNotFound(const std::string& key) {
  return core::NotFound("topic " + key + " not found");
}

}  // namespace

bool IsValidTopicKey(std::string_view key) {
  if (key.empty() || key.size() > 200) return false;
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!plain(key.front())) return false;
  return std::all_of(key.begin(), key.end(), [&](char c) {
    return plain(c) || c == '.' || c == '_' || c == ':' || c == '-';
  });
}

void RequireTopicKey(std::string_view key) {
  if (!IsValidTopicKey(key)) {
    throw core::InvalidField(
        "key",
        "a topic key is 1-200 characters of letters, digits and . _ : - (a letter or digit "
        "first)");
  }
}

std::string ParseTopicName(const nlohmann::json& body) {
  hub::RequireObject(body);
  return hub::RequireString(body, "name", 1, 200);
}

TopicInput ParseTopicInput(const nlohmann::json& body) {
  TopicInput input;
  input.name = ParseTopicName(body);
  if (const auto it = body.find("tenant"); it != body.end()) {
    input.tenant_changes = true;
    input.tenant = hub::OptionalString(body, "tenant", 1, 100);
    if (input.tenant && !hub::IsValidTenantKey(*input.tenant))
      throw core::InvalidField("tenant", "tenant must be a tenant key");
  }
  return input;
}

std::vector<std::int64_t> ParseUserIds(const nlohmann::json& body) {
  hub::RequireObject(body);
  const auto it = body.find("user_ids");
  if (it == body.end() || !it->is_array() || it->empty() || it->size() > kMaxSubscribersPerCall) {
    throw core::InvalidField("user_ids", "user_ids must be an array of 1 to " +
                                             std::to_string(kMaxSubscribersPerCall) + " user ids");
  }
  std::vector<std::int64_t> ids;
  ids.reserve(it->size());
  for (const auto& id : *it) {
    if (!id.is_number_integer() || id.get<std::int64_t>() <= 0)
      throw core::InvalidField("user_ids", "user_ids must hold positive integers");
    ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

Topic TopicService::Put(const std::string& key, const std::string& name) {
  TopicInput input;
  input.name = name;
  return Put(key, input, std::nullopt);
}

Topic TopicService::Put(const std::string& key, const TopicInput& input,
                        const std::optional<std::string>& confined) {
  RequireTopicKey(key);
  TopicInput put = input;
  if (confined) {
    if (put.tenant_changes && put.tenant != confined) {
      throw core::Forbidden("a key confined to tenant " + *confined +
                            " can only make that tenant's topics");
    }
    put.tenant_changes = true;
    put.tenant = confined;
  }
  const auto row = pool_.Acquire()->Exec(queries::kPutTopic, key, put.name, put.tenant_changes,
                                         put.tenant, confined);
  if (row.Empty()) {
    if (confined) throw TopicNotFound(key);
    throw core::NotFound("tenant " + put.tenant.value_or("") + " not found");
  }
  return {row.String(0, "key"), row.String(0, "name"), row.OptString(0, "tenant"),
          db::TimeColumn(row, 0, "created_at"), db::TimeColumn(row, 0, "updated_at")};
}

std::optional<std::string> TopicService::TenantOf(const std::string& key,
                                                  const std::optional<std::string>& confined) {
  RequireTopicKey(key);
  const auto row = pool_.Acquire()->Exec(queries::kTopicTenant, key);
  if (row.Empty()) throw TopicNotFound(key);
  auto tenant = row.OptString(0, "tenant");
  if (confined && tenant != confined) throw TopicNotFound(key);
  return tenant;
}

std::int64_t TopicService::AddSubscribers(const std::string& key,
                                          const std::vector<std::int64_t>& user_ids,
                                          const std::optional<std::string>& confined) {
  RequireTopicKey(key);
  const auto row =
      pool_.Acquire()->Exec(queries::kAddSubscribers, key, db::ArrayLiteral(user_ids), confined);
  if (!row.Bool(0, "topic_exists")) throw TopicNotFound(key);
  if (const auto missing = row.OptInt(0, "missing_user")) throw core::UserNotFound(*missing);
  return row.Int(0, "added");
}

std::int64_t TopicService::RemoveSubscribers(const std::string& key,
                                             const std::vector<std::int64_t>& user_ids,
                                             const std::optional<std::string>& confined) {
  RequireTopicKey(key);
  const auto row =
      pool_.Acquire()->Exec(queries::kRemoveSubscribers, key, db::ArrayLiteral(user_ids), confined);
  if (!row.Bool(0, "topic_exists")) throw TopicNotFound(key);
  return row.Int(0, "removed");
}

SubscriberPage TopicService::ListSubscribers(const std::string& key, int limit,
                                             const std::optional<std::string>& cursor,
                                             const std::optional<std::string>& confined) {
  RequireTopicKey(key);
  if (limit < 1 || limit > 1000) throw core::InvalidField("limit", "limit must be 1 to 1000");
  const std::int64_t after = cursor ? hub::DecodeIdCursor(*cursor) : 0;
  // One row more than the page tells whether another page follows.
  const auto rows =
      pool_.Acquire()->Exec(queries::kListSubscribers, key, after, limit + 1, confined);
  SubscriberPage page;
  bool topic_exists = false;
  int listed = 0;
  for (int i = 0; i < rows.Rows(); ++i) {
    if (rows.IsNull(i, "user_id")) {
      topic_exists = true;
      continue;
    }
    if (listed == limit) {
      page.next_cursor = hub::EncodeIdCursor(page.items.back().user_id);
      continue;
    }
    page.items.push_back({rows.Int(i, "user_id"), db::TimeColumn(rows, i, "created_at")});
    ++listed;
  }
  if (!topic_exists) throw TopicNotFound(key);
  return page;
}

void TopicService::Delete(const std::string& key, const std::optional<std::string>& confined) {
  RequireTopicKey(key);
  if (pool_.Acquire()->Exec(queries::kDeleteTopic, key, confined).AffectedRows() == 0)
    throw TopicNotFound(key);
}

}  // namespace chopar::broadcast
