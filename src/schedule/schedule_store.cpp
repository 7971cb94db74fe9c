#include "schedule/schedule_store.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/time_format.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/queries.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

nlohmann::json OptionalJson(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json ChannelsJson(const std::optional<std::vector<core::ChannelKind>>& channels) {
  if (!channels) return nullptr;
  nlohmann::json names = nlohmann::json::array();
  for (core::ChannelKind kind : *channels) names.push_back(core::ChannelName(kind));
  return names;
}

// The first firing after `now`, or why there is none to compute.
struct NextFire {
  std::optional<core::TimePoint> at;
  std::optional<std::string> error;
};

NextFire ComputeNext(const CronPattern& pattern, const std::string& zone_name, core::TimePoint now) {
  try {
    return {NextFireTime(pattern, FindTimeZone(zone_name), now), std::nullopt};
  } catch (const UnknownTimeZoneError& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace

std::optional<std::pair<std::size_t, std::size_t>> FindDuplicateKey(std::span<const ScheduleSpec> specs) {
  std::unordered_map<std::string_view, std::size_t> seen;
  seen.reserve(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto [it, inserted] = seen.emplace(specs[i].key, i);
    if (!inserted) return std::pair{it->second, i};
  }
  return std::nullopt;
}

UpsertOutcome UpsertSchedules(db::Transaction& tx, std::span<const ScheduleSpec> specs, core::TimePoint now) {
  UpsertOutcome outcome;
  if (specs.empty()) return outcome;

  std::vector<std::int64_t> user_ids;
  user_ids.reserve(specs.size());
  for (const auto& spec : specs) user_ids.push_back(spec.user_id);
  std::sort(user_ids.begin(), user_ids.end());
  user_ids.erase(std::unique(user_ids.begin(), user_ids.end()), user_ids.end());
  const auto users = tx.Exec(queries::kLockScheduleUsers, db::ArrayLiteral(user_ids));
  std::unordered_map<std::int64_t, std::string> zones;
  zones.reserve(static_cast<std::size_t>(users.Rows()));
  for (int i = 0; i < users.Rows(); ++i) zones.emplace(users.Int(i, 0), users.String(i, 1));

  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ScheduleSpec& spec = specs[i];
    const auto user = zones.find(spec.user_id);
    if (user == zones.end()) {
      outcome.unknown_user = i;
      return outcome;
    }
    NextFire next;
    if (spec.enabled) next = ComputeNext(spec.pattern, spec.timezone.value_or(user->second), now);
    const NotificationTemplate& t = spec.notification;
    rows.push_back({{"key", spec.key},
                    {"user_id", spec.user_id},
                    {"cron", spec.cron},
                    {"timezone", OptionalJson(spec.timezone)},
                    {"type", t.type},
                    {"title", t.title},
                    {"body", t.body},
                    {"link", OptionalJson(t.link)},
                    {"data", t.data},
                    {"channels", ChannelsJson(t.channels)},
                    {"critical", t.critical},
                    {"catchup_policy", CatchupPolicyName(spec.catchup_policy)},
                    {"catchup_window_seconds", spec.catchup_window.count()},
                    {"enabled", spec.enabled},
                    {"next_fire_at", next.at ? nlohmann::json(core::FormatRfc3339(*next.at)) : nlohmann::json()},
                    {"last_error", OptionalJson(next.error)}});
  }
  const auto stored = tx.Exec(queries::kUpsertSchedules, rows.dump(), core::FormatRfc3339Micros(now));
  outcome.stored.reserve(static_cast<std::size_t>(stored.Rows()));
  for (int i = 0; i < stored.Rows(); ++i) outcome.stored.emplace_back(stored.String(i, 0), stored.OptString(i, 1));
  return outcome;
}

void WakeSchedulers(db::Transaction& tx) { tx.Exec(queries::kNotifySchedulers); }

int RecomputeSchedulesForUser(db::Transaction& tx, std::int64_t user_id, core::TimePoint now) {
  const auto user = tx.Exec(queries::kUserTimezone, user_id);
  if (user.Empty()) return 0;
  const std::string zone = user.String(0, 0);
  const std::string now_text = core::FormatRfc3339Micros(now);
  const auto locked = tx.Exec(queries::kLockZoneFollowing, user_id, now_text);
  if (locked.Empty()) return 0;

  std::map<std::string, CronPattern> patterns;
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < locked.Rows(); ++i) {
    const std::string cron = locked.String(i, "cron");
    auto pattern = patterns.find(cron);
    if (pattern == patterns.end()) pattern = patterns.emplace(cron, ParseCron(cron)).first;
    const NextFire next = ComputeNext(pattern->second, zone, now);
    rows.push_back({{"key", locked.String(i, "key")},
                    {"next_fire_at", next.at ? nlohmann::json(core::FormatRfc3339(*next.at)) : nlohmann::json()},
                    {"last_error", OptionalJson(next.error)}});
  }
  tx.Exec(queries::kSetNextFire, rows.dump(), now_text);
  WakeSchedulers(tx);
  return locked.Rows();
}

}  // namespace chopar::schedule
