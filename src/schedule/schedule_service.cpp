#include "schedule/schedule_service.hpp"

#include <vector>

#include "core/api_error.hpp"
#include "core/time_format.hpp"
#include "hub/validation.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/queries.hpp"
#include "schedule/schedule_spec.hpp"
#include "schedule/schedule_store.hpp"

namespace chopar::schedule {
namespace {

constexpr int kDefaultPreviewCount = 10;
constexpr int kMaxPreviewCount = 1000;

void RequireKey(std::string_view key) {
  if (!IsValidScheduleKey(key))
    throw core::NotFound("schedule " + std::string(key) + " does not exist");
}

}  // namespace

nlohmann::json ScheduleService::Put(std::string_view key, const nlohmann::json& body) {
  const ScheduleSpec spec = ParseScheduleSpec(key, body);
  auto tx = pool_.Begin("put_schedule");
  const UpsertOutcome outcome = UpsertSchedules(tx, std::span(&spec, 1), clock_.Now());
  if (outcome.unknown_user) throw core::UserNotFound(spec.user_id);
  WakeSchedulers(tx);
  tx.Commit();
  const auto& next = outcome.stored.front().second;
  return {{"key", spec.key}, {"next_fire_at", next ? nlohmann::json(*next) : nlohmann::json()}};
}

nlohmann::json ScheduleService::Get(std::string_view key) {
  RequireKey(key);
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kGetSchedule, key);
  if (rows.Empty()) throw core::NotFound("schedule " + std::string(key) + " does not exist");
  return nlohmann::json::parse(rows.Text(0, 0));
}

void ScheduleService::Delete(std::string_view key) {
  RequireKey(key);
  auto tx = pool_.Begin("delete_schedule");
  if (tx.Exec(queries::kDeleteSchedule, key).AffectedRows() == 0) {
    throw core::NotFound("schedule " + std::string(key) + " does not exist");
  }
  WakeSchedulers(tx);
  tx.Commit();
}

nlohmann::json ScheduleService::BulkPut(const nlohmann::json& body) {
  if (!body.is_object())
    throw core::ApiError(400, "invalid_json", "the body must be a JSON object");
  const auto items = body.find("schedules");
  if (items == body.end() || !items->is_array()) {
    throw core::InvalidField("schedules", "schedules must be an array of schedules");
  }
  if (items->size() > kMaxBulk) {
    throw core::InvalidField("schedules", "at most " + std::to_string(kMaxBulk) +
                                              " schedules per request, got " +
                                              std::to_string(items->size()));
  }
  std::vector<ScheduleSpec> specs;
  specs.reserve(items->size());
  for (std::size_t i = 0; i < items->size(); ++i) {
    const std::string label = "schedules[" + std::to_string(i) + "]";
    const nlohmann::json& item = (*items)[i];
    if (!item.is_object())
      throw core::InvalidField(label, label + ": each schedule must be a JSON object");
    try {
      const auto key = item.find("key");
      if (key == item.end() || !key->is_string())
        throw core::InvalidField("key", "key is required");
      specs.push_back(ParseScheduleSpec(key->get<std::string>(), item));
    } catch (const core::ApiError& e) {
      throw PrefixError(e, label + ".", label);
    }
  }
  if (const auto duplicate = FindDuplicateKey(specs)) {
    const std::string label = "schedules[" + std::to_string(duplicate->second) + "]";
    throw core::InvalidField(label + ".key", label + ": key " + specs[duplicate->second].key +
                                                 " repeats schedules[" +
                                                 std::to_string(duplicate->first) + "]");
  }
  auto tx = pool_.Begin("bulk_put_schedules");
  const UpsertOutcome outcome = UpsertSchedules(tx, specs, clock_.Now());
  if (outcome.unknown_user) {
    const std::string label = "schedules[" + std::to_string(*outcome.unknown_user) + "]";
    throw PrefixError(core::UserNotFound(specs[*outcome.unknown_user].user_id), label + ".", label);
  }
  if (!specs.empty()) WakeSchedulers(tx);
  tx.Commit();
  return {{"upserted", outcome.stored.size()}};
}

nlohmann::json PreviewFireTimes(const nlohmann::json& body, core::TimePoint now) {
  if (!body.is_object())
    throw core::ApiError(400, "invalid_json", "the body must be a JSON object");
  const std::string cron = hub::RequireString(body, "cron", 1, 200);
  const CronPattern pattern = ParseCronField(cron, "cron");
  const std::string zone_name = hub::OptionalString(body, "timezone", 1, 64).value_or("UTC");
  const date::time_zone* zone = ParseZoneField(zone_name, "timezone");
  core::TimePoint after = now;
  if (const auto text = hub::OptionalString(body, "after", 1, 64)) {
    const auto parsed = core::ParseRfc3339(*text);
    if (!parsed)
      throw core::InvalidField("after",
                               "after must be an RFC 3339 time such as 2027-03-27T00:00:00Z");
    after = *parsed;
  }
  int count = kDefaultPreviewCount;
  if (const auto it = body.find("count"); it != body.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
        it->get<std::int64_t>() > kMaxPreviewCount) {
      throw core::InvalidField(
          "count", "count must be an integer from 1 to " + std::to_string(kMaxPreviewCount));
    }
    count = it->get<int>();
  }
  nlohmann::json fire_at = nlohmann::json::array();
  for (core::TimePoint t : NextFireTimes(pattern, zone, after, count))
    fire_at.push_back(core::FormatRfc3339(t));
  return {{"fire_at", std::move(fire_at)}};
}

void ScheduleService::RecomputeForUser(db::Transaction& tx, std::int64_t user_id) const {
  (void)RecomputeSchedulesForUser(tx, user_id, clock_.Now());
}

}  // namespace chopar::schedule
