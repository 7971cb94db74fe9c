#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "db/pool.hpp"
#include "db/read_router.hpp"
#include "hub/notification.hpp"
#include "hub/state_change_request.hpp"

namespace chopar::hub {

// The in-app bell of one user (docs/api.md "Notifications" list/count/read and the
// inbox endpoints). Every query is scoped by user id. Thread-safe.
//
// List, UnreadCount and ListDeliveries read where `reads` sends them when
// given ([database] read_url/read_urls: hot standbys, which may lag the
// primary up to read_max_lag_ms unless the caller carries its write's LSN,
// db::ReadRouter); everything else, including the SSE stream's reads
// (ReadFrom::kPrimary), uses `pool`.
class InboxService {
 public:
  explicit InboxService(db::Pool& pool, db::ReadRouter* reads = nullptr)
      : pool_(pool), reads_(reads) {}

  // Where the reads go (null: the primary pool).
  [[nodiscard]] db::ReadRouter* read_router() const { return reads_; }

  // Which notifications a list or a count shows: each filter narrows.
  struct Filter {
    std::vector<std::string> categories{};  // in one of these (empty: any)
    std::optional<std::string> tag{};       // carrying this tag
    // Only the notifications in this tenant (none: every notification).
    std::optional<std::string> tenant{};
  };
  struct ListOptions {
    int limit = 20;                       // 1..100
    std::optional<std::string> cursor{};  // opaque, from next_cursor
    bool unread_only = false;
    std::optional<bool> seen{};  // seen (read ones are) or unseen ones only; none: both
    bool archived = false;       // archived ones only, else none of them
    bool snoozed = false;        // snoozed ones only, else none of them
    Filter filter{};
  };
  // A page of the user's notifications, newest first, keyset-paginated.
  // Throws core::RequestError kInvalidField for a malformed cursor or limit.
  core::Page<Notification> List(std::int64_t user_id, const ListOptions& options);

  // Where a read goes: the read pool (which may lag the primary) or the
  // primary (which has every commit: what an SSE stream needs, since it
  // reads after a wake-up for a row just committed).
  enum class ReadFrom { kReadPool, kPrimary };
  // The badge's numbers: notifications neither archived nor snoozed that
  // are unseen (neither seen nor read) and unread, narrowed by `filter`.
  struct Counts {
    std::int64_t unseen = 0;
    std::int64_t unread = 0;
  };
  Counts CountUnseenAndUnread(std::int64_t user_id, const Filter& filter,
                              ReadFrom from = ReadFrom::kReadPool);
  // Counts' unread; `tenant`: only the notifications in that tenant.
  std::int64_t UnreadCount(std::int64_t user_id, ReadFrom from = ReadFrom::kReadPool,
                           const std::optional<std::string>& tenant = std::nullopt);

  // Applies `change` (docs/api.md "Inbox states") to the user's
  // notifications that `request` selects and returns how many changed (ids
  // of other users are ignored; a repeat gives 0). In the same transaction
  // it wakes the user's streams with the change (InboxStateWakes): each of
  // them sends a `state` event. Times are the database's now() (the
  // transaction's time). Throws db::DbError.
  std::int64_t ChangeState(std::int64_t user_id, InboxChange change,
                           const StateChangeRequest& request);
  // ChangeState(user_id, InboxChange::kRead, request).
  std::int64_t MarkRead(std::int64_t user_id, const StateChangeRequest& request) {
    return ChangeState(user_id, InboxChange::kRead, request);
  }

  // The user's notifications among `ids` (others are left out), by id.
  std::vector<Notification> NotificationsByIds(std::int64_t user_id,
                                               const std::vector<std::int64_t>& ids);

  // What an SSE stream has not sent yet, by id, at most `limit`: the user's
  // notifications with id > after_id, and those with a smaller id created at
  // or after `late_since` that are not in `sent` — a transaction that drew a
  // smaller id can commit after a larger one was sent (a firing prepared
  // ahead of its instant, a long batch).
  struct Unsent {
    std::int64_t after_id = 0;
    std::optional<core::TimePoint> late_since;  // none: by id alone
    std::vector<std::int64_t> sent;
  };
  std::vector<Notification> ListUnsent(std::int64_t user_id, const Unsent& unsent, int limit = 100);
  // The user's newest notification id (0 if none): where a new stream starts.
  std::int64_t LatestId(std::int64_t user_id);

  // GET /v1/notifications/{id}: the notification with its deliveries.
  // Throws core::RequestError kNotFound, also (with `tenant`) for one that
  // is not in that tenant.
  NotificationWithDeliveries GetNotification(
      std::int64_t notification_id, const std::optional<std::string>& tenant = std::nullopt);

  // GET /v1/deliveries with optional filters status/channel/user_id, limit,
  // cursor; newest first.
  struct DeliveryFilter {
    std::optional<std::string> status{};
    std::optional<std::string> channel{};
    std::optional<std::int64_t> user_id{};
    int limit = 50;
    std::optional<std::string> cursor{};
  };
  core::Page<Delivery> ListDeliveries(const DeliveryFilter& filter);

  // Whether the user exists (for 404 user_not_found on user-scoped routes).
  bool UserExists(std::int64_t user_id);

  // The user's subscriber-token generation (docs/api.md "Authentication"),
  // read from the primary so a revocation counts at once; nullopt when the
  // user does not exist. One primary-key lookup.
  std::optional<std::int64_t> TokenGeneration(std::int64_t user_id);
  // The generation a subscriber token of the user must carry to be
  // accepted: TokenGeneration, or -1 (which no token carries) for a user
  // erased or being erased (docs/privacy.md); nullopt for a user that never
  // existed. One statement.
  std::optional<std::int64_t> SubscriberGeneration(std::int64_t user_id);
  // Raises the user's token generation by one, so every token issued before
  // is refused; the new generation, or nullopt when the user does not exist.
  std::optional<std::int64_t> RevokeTokens(std::int64_t user_id);

 private:
  template <typename Fn>
  auto Read(Fn read) {
    return db::ReadOn(reads_, pool_, std::move(read));
  }

  db::Pool& pool_;
  db::ReadRouter* reads_;  // null: reads go to pool_
};

}  // namespace chopar::hub
