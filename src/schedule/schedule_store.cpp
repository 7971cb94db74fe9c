#include "schedule/schedule_store.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/time_format.hpp"
#include "db/time_column.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/queries.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

nlohmann::json OptionalJson(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

// Appends `text` as a JSON string. Rows are written by hand because building
// a nlohmann object per row costs more than the rest of the client work.
void AppendString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  out += '"';
}

void AppendOptional(std::string& out, const std::optional<std::string>& text) {
  if (text) {
    AppendString(out, *text);
  } else {
    out += "null";
  }
}

// One element of upsert_schedules.sql's $1.
void AppendRow(std::string& out, const ScheduleSpec& spec,
               const std::optional<std::string>& next_fire_at,
               const std::optional<std::string>& last_error) {
  const NotificationTemplate& t = spec.notification;
  out += "{\"key\":";
  AppendString(out, spec.key);
  out += ",\"user_id\":" + std::to_string(spec.user_id) + ",\"cron\":";
  AppendString(out, spec.cron);
  out += ",\"timezone\":";
  AppendOptional(out, spec.timezone);
  out += ",\"type\":";
  AppendString(out, t.type);
  out += ",\"title\":";
  AppendString(out, t.title);
  out += ",\"body\":";
  AppendString(out, t.body);
  out += ",\"link\":";
  AppendOptional(out, t.link);
  out += ",\"data\":";
  out += t.data.empty() ? "{}" : t.data.dump();
  out += ",\"channels\":";
  if (t.channels) {
    out += '[';
    for (std::size_t i = 0; i < t.channels->size(); ++i) {
      if (i > 0) out += ',';
      AppendString(out, core::ChannelName((*t.channels)[i]));
    }
    out += ']';
  } else {
    out += "null";
  }
  out += ",\"critical\":";
  out += t.critical ? "true" : "false";
  out += ",\"delay_seconds\":";
  out += t.delay_seconds ? std::to_string(*t.delay_seconds) : "null";
  out += ",\"cancellation_key\":";
  AppendOptional(out, t.cancellation_key);
  out += ",\"catchup_policy\":";
  AppendString(out, CatchupPolicyName(spec.catchup_policy));
  out += ",\"catchup_window_seconds\":" + std::to_string(spec.catchup_window.count());
  out += ",\"enabled\":";
  out += spec.enabled ? "true" : "false";
  out += ",\"next_fire_at\":";
  AppendOptional(out, next_fire_at);
  out += ",\"last_error\":";
  AppendOptional(out, last_error);
  out += '}';
}

// The first firing after `now`, or why there is none to compute.
struct NextFire {
  std::optional<core::TimePoint> at;
  std::optional<std::string> error;
};

NextFire ComputeNext(const CronPattern& pattern, const std::string& zone_name,
                     core::TimePoint now) {
  try {
    return {NextFireTime(pattern, FindTimeZone(zone_name), now), std::nullopt};
  } catch (const UnknownTimeZoneError& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace

std::optional<std::pair<std::size_t, std::size_t>> FindDuplicateKey(
    std::span<const ScheduleSpec> specs) {
  std::unordered_map<std::string_view, std::size_t> seen;
  seen.reserve(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto [it, inserted] = seen.emplace(specs[i].key, i);
    if (!inserted) return std::pair{it->second, i};
  }
  return std::nullopt;
}

UpsertOutcome UpsertSchedules(db::Transaction& tx, std::span<const ScheduleSpec> specs,
                              core::TimePoint now) {
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

  std::string rows = "[";
  rows.reserve(specs.size() * 320);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ScheduleSpec& spec = specs[i];
    const auto user = zones.find(spec.user_id);
    if (user == zones.end()) {
      outcome.unknown_user = i;
      return outcome;
    }
    NextFire next;
    if (spec.enabled) next = ComputeNext(spec.pattern, spec.timezone.value_or(user->second), now);
    if (i > 0) rows += ',';
    AppendRow(rows, spec, next.at ? std::optional(core::FormatRfc3339(*next.at)) : std::nullopt,
              next.error);
  }
  rows += ']';
  const auto stored = tx.Exec(queries::kUpsertSchedules, rows, core::FormatRfc3339Micros(now));
  outcome.stored.reserve(static_cast<std::size_t>(stored.Rows()));
  for (int i = 0; i < stored.Rows(); ++i)
    outcome.stored.emplace_back(stored.String(i, "key"),
                                db::OptTimeColumn(stored, i, "next_fire_at"));
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
                    {"next_fire_at",
                     next.at ? nlohmann::json(core::FormatRfc3339(*next.at)) : nlohmann::json()},
                    {"last_error", OptionalJson(next.error)}});
  }
  tx.Exec(queries::kSetNextFire, rows.dump(), now_text);
  WakeSchedulers(tx);
  return locked.Rows();
}

}  // namespace chopar::schedule
