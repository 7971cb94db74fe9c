#pragma once

#include <date/tz.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "core/request_error.hpp"
#include "schedule/cron.hpp"

namespace chopar::schedule {

// What the scheduler does with occurrences it finds already past when it
// gets to them (after downtime). See catchup.hpp for the exact rule.
enum class CatchupPolicy { kLatest, kAll, kNone };

// "latest", "all", "none" — the names used in the API and the database.
std::string_view CatchupPolicyName(CatchupPolicy policy);
// nullopt for any other text.
std::optional<CatchupPolicy> ParseCatchupPolicy(std::string_view name);

inline constexpr std::chrono::seconds kDefaultCatchupWindow{86400};
// The API's upper bound on window_seconds: bounds the occurrences one
// catch-up decision may have to walk.
inline constexpr std::chrono::seconds kMaxCatchupWindow{366 * 86400};

// The notification each firing creates; the fields of POST /v1/notifications
// without user_id (the schedule's), dedup_key (set per occurrence) and
// send_at (refused: an absolute instant does not recur).
struct NotificationTemplate {
  std::string type;
  std::string title;
  std::string body;
  std::optional<std::string> link;
  nlohmann::json data = nlohmann::json::object();
  std::optional<std::vector<core::ChannelKind>> channels;  // nullopt: every channel
  bool critical = false;
  // Each occurrence appears this long after its due instant (a delayed
  // notification); nullopt: at once.
  std::optional<int> delay_seconds;
  // Carried by every occurrence's notification (POST /v1/notifications/cancel).
  std::optional<std::string> cancellation_key;

  friend bool operator==(const NotificationTemplate&, const NotificationTemplate&) = default;
};

// One validated schedule (docs/api.md PUT /v1/schedules/{key}).
struct ScheduleSpec {
  std::string key;
  std::int64_t user_id = 0;
  std::string cron;  // the text as given, blanks trimmed
  CronPattern pattern;
  std::optional<std::string> timezone;  // nullopt: follow the user's zone
  NotificationTemplate notification;
  CatchupPolicy catchup_policy = CatchupPolicy::kLatest;
  std::chrono::seconds catchup_window = kDefaultCatchupWindow;
  bool enabled = true;
};

// 1 to 200 characters of [A-Za-z0-9_.:-], starting with a letter or digit
// (the database CHECK says the same).
bool IsValidScheduleKey(std::string_view key);

// Parses and validates a schedule body:
//   {"user_id": 8, "cron": "5 18 * * *", "timezone": "Asia/Tashkent" | null,
//    "notification": {"type", "title", "body", "link", "data", "channels",
//                     "critical", "delay_seconds", "cancellation_key"},
//    "catchup": {"policy": "latest" | "all" | "none", "window_seconds": n},
//    "enabled": true}
// `key` is the path's key; a "key" member in the body, if present, must equal
// it. Absent timezone, catchup and enabled take their defaults (follow the
// user, latest, 86400 s, true). The notification is validated exactly as
// POST /v1/notifications validates (hub::ParseNotificationRequest); a
// dedup_key there is refused because each firing sets its own, a send_at
// because one instant cannot delay every occurrence of a recurring schedule
// (delay_seconds does that).
//
// Throws core::RequestError (kInvalidJson / kInvalidField) naming the field;
// a bad cron pattern's message carries the field and character position
// ("cron: hour field: value 24 out of range 0-23 at position 3"), an unknown
// zone names it. Pure; thread-safe.
ScheduleSpec ParseScheduleSpec(std::string_view key, const nlohmann::json& body);

// The most schedules one PUT /v1/schedules may carry.
inline constexpr std::size_t kMaxBulkSchedules = 10'000;

// Parses PUT /v1/schedules {"schedules": [{"key": …, …PUT body…}, …]}: at
// most kMaxBulkSchedules items, each as ParseScheduleSpec parses it with the
// key from its "key" member. An invalid item is named by index in the
// error's field and message ("schedules[3].cron", "schedules[3]: cron: …").
// Keys given twice are not checked here (ScheduleService::BulkPut refuses
// them). Pure; thread-safe.
std::vector<ScheduleSpec> ParseScheduleSpecs(const nlohmann::json& body);

// The instants a pattern would fire at, asked without a schedule.
struct PreviewRequest {
  CronPattern pattern;
  const date::time_zone* zone = nullptr;  // from FindTimeZone; never null once parsed
  std::optional<core::TimePoint> after;   // strictly after this; nullopt: now
  int count = 10;                         // 1..kMaxPreviewCount
};
inline constexpr int kMaxPreviewCount = 1000;

// Parses POST /v1/schedules/preview {"cron", "timezone" (default "UTC"),
// "after" (RFC 3339), "count" (1..kMaxPreviewCount, default 10)}. Throws
// core::RequestError (kInvalidJson / kInvalidField) naming the field (a bad
// cron pattern's message carries the character position). Pure; thread-safe.
PreviewRequest ParsePreviewRequest(const nlohmann::json& body);

// The cron pattern of request field `field`, or core::RequestError
// kInvalidField naming the field with CronError's message (field and
// position).
CronPattern ParseCronField(std::string_view text, const char* field);
// The zone of request field `field`, or core::RequestError kInvalidField naming it.
const date::time_zone* ParseZoneField(std::string_view name, const char* field);

}  // namespace chopar::schedule
