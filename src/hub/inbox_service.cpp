#include "hub/inbox_service.hpp"

#include <limits>

#include "core/channel_kind.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "hub/cursor.hpp"
#include "hub/queries.hpp"

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

}  // namespace

core::Page<Notification> InboxService::List(std::int64_t user_id, const ListOptions& options) {
  const int limit = CheckLimit(options.limit, 100);
  // "No cursor" is a cursor past every row: the far future and the largest id.
  InboxCursor after{std::numeric_limits<std::int64_t>::max() / 2, kMaxId};
  if (options.cursor) after = DecodeInboxCursor(*options.cursor);
  auto conn = reads_.Acquire();
  const auto& query =
      options.unread_only ? queries::kListUnreadNotifications : queries::kListNotifications;
  const auto rows =
      conn->Exec(query, user_id, after.created_micros, after.id, limit + 1, options.tenant);
  const bool more = rows.Rows() > limit;
  const int shown = more ? limit : rows.Rows();
  core::Page<Notification> page{ReadRows(rows, shown, &ReadNotification), std::nullopt};
  if (more) {
    page.next_cursor =
        EncodeInboxCursor({rows.Int(shown - 1, "created_micros"), rows.Int(shown - 1, "id")});
  }
  return page;
}

std::int64_t InboxService::UnreadCount(std::int64_t user_id, ReadFrom from,
                                       const std::optional<std::string>& tenant) {
  auto conn = (from == ReadFrom::kPrimary ? pool_ : reads_).Acquire();
  return conn->Exec(queries::kUnreadCount, user_id, tenant).Int(0, 0);
}

std::int64_t InboxService::MarkRead(std::int64_t user_id, const MarkReadRequest& request) {
  auto tx = pool_.Begin("mark_read");
  const auto result = request.all
                          ? tx.Exec(queries::kMarkReadAll, user_id)
                          : tx.Exec(queries::kMarkReadIds, user_id, db::ArrayLiteral(request.ids));
  const std::int64_t updated = result.AffectedRows();
  if (updated > 0) tx.Exec(queries::kWakeInbox, std::to_string(user_id));
  tx.Commit();
  return updated;
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
  return {ReadNotification(rows, 0), ReadRows(deliveries, deliveries.Rows(), &ReadDelivery)};
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
  auto conn = reads_.Acquire();
  const auto rows = conn->Exec(queries::kListDeliveries, filter.status, filter.channel,
                               filter.user_id, limit + 1, before);
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

std::optional<std::int64_t> InboxService::RevokeTokens(std::int64_t user_id) {
  auto conn = pool_.Acquire();
  const db::Result rows = conn->Exec(queries::kRevokeUserTokens, user_id);
  if (rows.Empty()) return std::nullopt;
  return rows.Int(0, 0);
}

}  // namespace chopar::hub
