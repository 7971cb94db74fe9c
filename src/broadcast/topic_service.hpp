#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"

namespace chopar::broadcast {

// The most user ids one add or remove call may carry.
inline constexpr std::size_t kMaxSubscribersPerCall = 10000;

// ^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$, as the database's CHECK.
bool IsValidTopicKey(std::string_view key);

// Throws core::RequestError kInvalidField naming "key" unless IsValidTopicKey.
void RequireTopicKey(std::string_view key);

// The body of PUT /v1/topics/{key}: {"name": "…"} (1..200 characters).
// Throws core::RequestError kInvalidJson / kInvalidField.
std::string ParseTopicName(const nlohmann::json& body);

// What PUT /v1/topics/{key} sets: its name, and when `tenant_changes` its
// tenant (`tenant`: a tenant's key, or nullopt for none).
struct TopicInput {
  std::string name;
  bool tenant_changes = false;
  std::optional<std::string> tenant;
};
// {"name": "…", "tenant": "acme" | null}: "tenant" left out keeps the
// topic's. Throws core::RequestError kInvalidJson / kInvalidField.
TopicInput ParseTopicInput(const nlohmann::json& body);

// {"user_ids": [positive ids…]}: 1..kMaxSubscribersPerCall of them
// (duplicates allowed, counted once). Throws core::RequestError
// kInvalidJson / kInvalidField ("user_ids").
std::vector<std::int64_t> ParseUserIds(const nlohmann::json& body);

// A topic (http::TopicView is its JSON).
struct Topic {
  std::string key;
  std::string name;
  // The tenant whose topic it is: its broadcasts are that tenant's
  // notifications, its subscribers that tenant's members. None: everyone's.
  std::optional<std::string> tenant;
  core::TimePoint created_at;
  core::TimePoint updated_at;
};

// A user subscribed to a topic, and since when.
struct Subscriber {
  std::int64_t user_id = 0;
  core::TimePoint created_at;
};

// One page of GET /v1/topics/{key}/subscribers.
using SubscriberPage = core::Page<Subscriber>;

// Topics and their subscribers (docs/api.md "Topics and broadcasts"). Each
// call is one statement. `confined`: the caller's key is confined to that
// tenant; a topic of another tenant, or of none, is then as one that does
// not exist (kNotFound) and is not changed. Thread-safe; the pool must
// outlive the service.
class TopicService {
 public:
  explicit TopicService(db::Pool& pool) : pool_(pool) {}

  // Creates or renames topic `key`; returns it.
  Topic Put(const std::string& key, const std::string& name);
  // The same with its tenant: `input.tenant` when it changes, and always
  // `confined`'s for a confined caller (whose `input` may name no other:
  // kForbidden). kNotFound for a tenant that does not exist.
  Topic Put(const std::string& key, const TopicInput& input,
            const std::optional<std::string>& confined);
  // The tenant of topic `key` (nullopt: none). kNotFound for an unknown
  // topic, and with `confined` for one of another tenant or of none.
  std::optional<std::string> TenantOf(const std::string& key,
                                      const std::optional<std::string>& confined = std::nullopt);
  // Subscribes the users (idempotent); returns how many were not subscribed
  // before. Throws core::RequestError kNotFound for an unknown topic,
  // kUserNotFound for an unknown user, or for a tenant's topic a user who
  // does not belong to that tenant (then nobody is added).
  std::int64_t AddSubscribers(const std::string& key, const std::vector<std::int64_t>& user_ids,
                              const std::optional<std::string>& confined = std::nullopt);
  // Unsubscribes them; returns how many were subscribed. kNotFound for an
  // unknown topic.
  std::int64_t RemoveSubscribers(const std::string& key, const std::vector<std::int64_t>& user_ids,
                                 const std::optional<std::string>& confined = std::nullopt);
  // Subscribers in user id order after `cursor` (hub::EncodeIdCursor of the
  // last user id of the previous page), at most `limit` (1..1000).
  // kNotFound for an unknown topic, kInvalidField "cursor" for a bad cursor.
  SubscriberPage ListSubscribers(const std::string& key, int limit,
                                 const std::optional<std::string>& cursor,
                                 const std::optional<std::string>& confined = std::nullopt);
  // Deletes the topic and its subscriptions. kNotFound when it does not exist.
  void Delete(const std::string& key, const std::optional<std::string>& confined = std::nullopt);

 private:
  db::Pool& pool_;
};

}  // namespace chopar::broadcast
