#include "hub/inbox_service.hpp"

#include <limits>

#include "core/channel_kind.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "hub/cursor.hpp"
#include "hub/inbox_state_wake.hpp"
#include "hub/queries.hpp"
#include "workflow/step_progress.hpp"

namespace chopar::hub {
namespace {

constexpr std::int64_t kMaxId = std::numeric_limits<std::int64_t>::max();

int CheckLimit(int limit, int max) {
  if (limit < 1 || limit > max) {
    throw core::InvalidField("limit", "limit must be between 1 and " + std::to_string(max));
  }
  return limit;
}

template <typename T>
std::vector<T> ReadRows(const db::Result& rows, int count, T (*read)(const db::Result&, int)) {
  std::vector<T> items;
  items.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) items.push_back(read(rows, i));
  return items;
}

// A list as one parameter, NULL when empty (the queries' "any").
std::optional<std::string> ArrayOrNull(const std::vector<std::string>& items) {
  if (items.empty()) return std::nullopt;
  return db::ArrayLiteral(items);
}

}  // namespace

core::Page<Notification> InboxService::List(std::int64_t user_id, const ListOptions& options) {
  const int limit = CheckLimit(options.limit, 100);
  // "No cursor" is a cursor past every row: the far future and the largest id.
  InboxCursor after{std::numeric_limits<std::int64_t>::max() / 2, kMaxId};
  if (options.cursor) after = DecodeInboxCursor(*options.cursor);
  const auto& query =
      options.unread_only ? queries::kListUnreadNotifications : queries::kListNotifications;
  const Filter& filter = options.filter;
  const auto rows = Read([&](db::Pool& pool) {
    return pool.Acquire()->Exec(query, user_id, after.created_micros, after.id, limit + 1,
                                filter.tenant, options.archived, options.snoozed,
                                ArrayOrNull(filter.categories), filter.tag, options.seen);
  });
  const bool more = rows.Rows() > limit;
  const int shown = more ? limit : rows.Rows();
  core::Page<Notification> page{ReadRows(rows, shown, &ReadNotification), std::nullopt};
  if (more) {
    page.next_cursor =
        EncodeInboxCursor({rows.Int(shown - 1, "created_micros"), rows.Int(shown - 1, "id")});
  }
  return page;
}

InboxService::Counts InboxService::CountUnseenAndUnread(std::int64_t user_id, const Filter& filter,
                                                        ReadFrom from) {
  auto count = [&](db::Pool& pool) {
    return pool.Acquire()->Exec(queries::kInboxCounts, user_id, ArrayOrNull(filter.categories),
                                filter.tag, filter.tenant);
  };
  const auto row = from == ReadFrom::kPrimary ? count(pool_) : Read(count);
  return {row.Int(0, "unseen"), row.Int(0, "unread")};
}

std::int64_t InboxService::UnreadCount(std::int64_t user_id, ReadFrom from,
                                       const std::optional<std::string>& tenant) {
  return CountUnseenAndUnread(user_id, {.tenant = tenant}, from).unread;
}

std::int64_t InboxService::ChangeState(std::int64_t user_id, InboxChange change,
                                       const StateChangeRequest& request) {
  std::optional<std::string> ids;
  if (!request.all) ids = db::ArrayLiteral(request.ids);
  std::optional<std::string> snoozed_until;
  if (request.snoozed_until) snoozed_until = core::FormatRfc3339Micros(*request.snoozed_until);
  auto tx = pool_.Begin("change_inbox_state");
  const auto row = tx.Exec(queries::kChangeState, user_id, InboxChangeName(change), ids,
                           ArrayOrNull(request.categories), request.tag, request.tenant,
                           snoozed_until, static_cast<int>(kMaxStateChangeIds));
  const std::int64_t updated = row.Int(0, "updated");
  if (updated > 0) {
    InboxStateChange state;
    state.change = change;
    state.at = row.String(0, "at");
    state.filter = request;
    if (!row.IsNull(0, "ids"))
      state.ids = nlohmann::json::parse(row.Text(0, "ids")).get<std::vector<std::int64_t>>();
    if (request.snoozed_until) state.snoozed_until = core::FormatRfc3339(*request.snoozed_until);
    tx.Exec(queries::kWakeInbox, db::ArrayLiteral(InboxStateWakes(user_id, state)));
    if (change == InboxChange::kSnoozed) tx.Exec(queries::kWakeSnoozeReturners);
  }
  tx.Commit();
  return updated;
}

std::vector<Notification> InboxService::NotificationsByIds(std::int64_t user_id,
                                                           const std::vector<std::int64_t>& ids) {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kNotificationsByIds, user_id, db::ArrayLiteral(ids));
  return ReadRows(rows, rows.Rows(), &ReadNotification);
}

std::vector<Notification> InboxService::ListUnsent(std::int64_t user_id, const Unsent& unsent,
                                                   int limit) {
  std::optional<std::string> late_since;
  if (unsent.late_since) late_since = core::FormatRfc3339Micros(*unsent.late_since);
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kListNotificationsUnsent, user_id, unsent.after_id, limit,
                               late_since, db::ArrayLiteral(unsent.sent));
  return ReadRows(rows, rows.Rows(), &ReadNotification);
}

std::int64_t InboxService::LatestId(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  return conn->Exec(queries::kLatestNotificationId, user_id).Int(0, 0);
}

NotificationWithDeliveries InboxService::GetNotification(std::int64_t notification_id,
                                                         const std::optional<std::string>& tenant) {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kGetNotification, notification_id);
  if (rows.Empty() || (tenant && rows.OptString(0, "tenant") != tenant))
    throw core::NotFound("notification " + std::to_string(notification_id) + " does not exist");
  const auto deliveries = conn->Exec(queries::kNotificationDeliveries, notification_id);
  const auto run = conn->Exec(queries::kNotificationWorkflow, notification_id);
  std::vector<Delivery> listed = ReadRows(deliveries, deliveries.Rows(), &ReadDelivery);
  nlohmann::json workflow;
  if (!run.Empty()) {
    std::vector<workflow::ChannelDelivery> by_channel;
    by_channel.reserve(listed.size());
    for (const Delivery& d : listed) by_channel.push_back({d.id, d.channel});
    workflow = {
        {"status", run.String(0, "status")},
        {"step", run.Int(0, "step")},
        {"due_at",
         run.IsNull(0, "due_at") ? nlohmann::json() : nlohmann::json(run.String(0, "due_at"))},
        {"steps", workflow::WithDeliveryIds(
                      workflow::WithNullMembers(nlohmann::json::parse(run.Text(0, "outcomes"))),
                      by_channel)}};
  }
  return {ReadNotification(rows, 0), std::move(listed), std::move(workflow)};
}

core::Page<Delivery> InboxService::ListDeliveries(const DeliveryFilter& filter) {
  const int limit = CheckLimit(filter.limit, 500);
  if (filter.status && *filter.status != "queued" && *filter.status != "sending" &&
      *filter.status != "sent" && *filter.status != "failed" && *filter.status != "skipped" &&
      *filter.status != "canceled") {
    throw core::InvalidField("status",
                             "status must be queued, sending, sent, failed, skipped or canceled");
  }
  if (filter.channel && !core::ParseChannel(*filter.channel)) {
    throw core::InvalidField("channel", "channel must be " + core::ChannelNamesText());
  }
  std::int64_t before = kMaxId;
  if (filter.cursor) before = DecodeIdCursor(*filter.cursor);
  const auto rows = Read([&](db::Pool& pool) {
    return pool.Acquire()->Exec(queries::kListDeliveries, filter.status, filter.channel,
                                filter.user_id, limit + 1, before);
  });
  const bool more = rows.Rows() > limit;
  const int shown = more ? limit : rows.Rows();
  core::Page<Delivery> page{ReadRows(rows, shown, &ReadDelivery), std::nullopt};
  if (more) page.next_cursor = EncodeIdCursor(rows.Int(shown - 1, "id"));
  return page;
}

bool InboxService::UserExists(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  return !conn->Exec(queries::kUserExists, user_id).Empty();
}

std::optional<std::int64_t> InboxService::TokenGeneration(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  const db::Result rows = conn->Exec(queries::kUserTokenGeneration, user_id);
  if (rows.Empty()) return std::nullopt;
  return rows.Int(0, 0);
}

std::optional<std::int64_t> InboxService::SubscriberGeneration(std::int64_t user_id) {
  const db::Result rows = pool_.Acquire()->Exec(queries::kSubscriberGeneration, user_id);
  if (rows.Empty()) return std::nullopt;
  return rows.Int(0, 0);
}

std::optional<std::int64_t> InboxService::RevokeTokens(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  const db::Result rows = conn->Exec(queries::kRevokeUserTokens, user_id);
  if (rows.Empty()) return std::nullopt;
  return rows.Int(0, 0);
}

}  // namespace chopar::hub
