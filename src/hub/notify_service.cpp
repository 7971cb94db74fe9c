#include "hub/notify_service.hpp"

#include <map>
#include <set>

#include "core/metrics.hpp"
#include "core/time_format.hpp"
#include "hub/channel_choice.hpp"
#include "hub/queries.hpp"

namespace chopar::hub {
namespace {

struct Recipient {
  nlohmann::json preferences;
  Addressable addressable{};
};

std::map<std::int64_t, Recipient> LoadRecipients(db::Transaction& tx,
                                                 const std::vector<NotificationRequest>& requests) {
  std::set<std::int64_t> ids;
  for (const auto& r : requests) ids.insert(r.user_id);
  const auto rows = tx.Exec(queries::kUsersForNotify,
                            db::ArrayLiteral(std::vector<std::int64_t>(ids.begin(), ids.end())));
  std::map<std::int64_t, Recipient> recipients;
  for (int i = 0; i < rows.Rows(); ++i) {
    Recipient& r = recipients[rows.Int(i, "id")];
    r.preferences = nlohmann::json::parse(rows.Text(i, "preferences"));
    r.addressable = {rows.Bool(i, "has_email"), rows.Bool(i, "has_telegram"), rows.Bool(i, "has_push"),
                     rows.Bool(i, "has_sms")};
  }
  return recipients;
}

// The chopar_inbox payload: the users whose streams should wake. NOTIFY
// payloads are limited to 8000 bytes; a large batch wakes every stream.
std::string InboxPayload(const std::set<std::int64_t>& users) {
  std::string payload;
  for (std::int64_t id : users) {
    if (!payload.empty()) payload += ',';
    payload += std::to_string(id);
    if (payload.size() > 7000) return "*";
  }
  return payload;
}

core::Counter& CreatedCounter() {
  static core::Counter& counter = core::MetricsRegistry::Global().GetCounter(
      "chopar_notifications_created_total", "Notifications created (in-app rows)");
  return counter;
}

}  // namespace

std::vector<BatchItemResult> NotifyService::NotifyIn(db::Transaction& tx,
                                                     const std::vector<NotificationRequest>& requests,
                                                     core::TimePoint now) {
  std::vector<std::optional<BatchItemResult>> results(requests.size());
  if (requests.empty()) return {};
  const auto recipients = LoadRecipients(tx, requests);

  std::vector<std::size_t> accepted;
  std::vector<std::vector<core::ChannelKind>> chosen(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto it = recipients.find(requests[i].user_id);
    if (it == recipients.end()) {
      results[i] = core::UserNotFound(requests[i].user_id);
      continue;
    }
    chosen[i] = ChooseChannels(it->second.preferences, it->second.addressable, requests[i].channels,
                               requests[i].critical);
    accepted.push_back(i);
  }

  if (!accepted.empty()) {
    const auto ids = tx.Exec(queries::kReserveNotificationIds, static_cast<int>(accepted.size()));
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t k = 0; k < accepted.size(); ++k) {
      const NotificationRequest& r = requests[accepted[k]];
      nlohmann::json channel_names = nlohmann::json::array();
      for (core::ChannelKind kind : chosen[accepted[k]]) channel_names.push_back(core::ChannelName(kind));
      rows.push_back({{"idx", accepted[k]},
                      {"id", ids.Int(static_cast<int>(k), 0)},
                      {"user_id", r.user_id},
                      {"type", r.type},
                      {"title", r.title},
                      {"body", r.body},
                      {"link", r.link ? nlohmann::json(*r.link) : nlohmann::json()},
                      {"data", r.data},
                      {"dedup_key", r.dedup_key ? nlohmann::json(*r.dedup_key) : nlohmann::json()},
                      {"critical", r.critical},
                      {"channels", channel_names}});
    }
    const auto inserted = tx.Exec(queries::kInsertNotifications, rows.dump(), core::FormatRfc3339Micros(now));

    std::set<std::int64_t> woken_users;
    // (user, dedup key) → id, for duplicates of an earlier row of this batch.
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> batch_ids;
    int created = 0;
    for (int row = 0; row < inserted.Rows(); ++row) {
      const auto idx = static_cast<std::size_t>(inserted.Int(row, "idx"));
      const NotificationRequest& r = requests[idx];
      NotifyResult result;
      result.created = inserted.Bool(row, "created");
      if (result.created) {
        result.id = inserted.Int(row, "id");
        result.channels = chosen[idx];
        ++created;
        woken_users.insert(r.user_id);
        if (r.dedup_key) batch_ids[{r.user_id, *r.dedup_key}] = result.id;
      } else if (auto existing = inserted.OptInt(row, "id")) {
        result.id = *existing;
      } else if (const auto it = batch_ids.find({r.user_id, *r.dedup_key}); it != batch_ids.end()) {
        result.id = it->second;
      } else {
        // A concurrent transaction inserted the key after this statement's
        // snapshot was taken; a new statement sees its committed row.
        result.id = tx.Exec(queries::kFindByDedupKey, r.user_id, *r.dedup_key).Int(0, 0);
      }
      results[idx] = result;
    }
    if (!woken_users.empty()) {
      tx.Exec(queries::kNotifyListeners, InboxPayload(woken_users));
      CreatedCounter().Inc(created);
    }
  }

  std::vector<BatchItemResult> out;
  out.reserve(results.size());
  for (auto& result : results) out.push_back(std::move(*result));
  return out;
}

NotifyResult NotifyService::Notify(const NotificationRequest& request) {
  auto results = NotifyBatch({request});
  if (auto* error = std::get_if<core::ApiError>(&results.front())) throw *error;
  return std::get<NotifyResult>(results.front());
}

std::vector<BatchItemResult> NotifyService::NotifyBatch(const std::vector<NotificationRequest>& requests) {
  auto tx = pool_.Begin("notify");
  auto results = NotifyIn(tx, requests, clock_.Now());
  tx.Commit();
  return results;
}

}  // namespace chopar::hub
