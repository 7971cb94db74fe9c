#include "schedule/schedule_service.hpp"

#include "core/request_error.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/queries.hpp"
#include "schedule/schedule_store.hpp"

namespace chopar::schedule {
namespace {

void RequireKey(std::string_view key) {
  if (!IsValidScheduleKey(key))
    throw core::NotFound("schedule " + std::string(key) + " does not exist");
}

}  // namespace

StoredSchedule ScheduleService::Put(const ScheduleSpec& spec) {
  auto tx = pool_.Begin("put_schedule");
  const UpsertOutcome outcome = UpsertSchedules(tx, std::span(&spec, 1), clock_.Now());
  if (outcome.unknown_user) throw core::UserNotFound(spec.user_id);
  WakeSchedulers(tx);
  tx.Commit();
  return {spec.key, outcome.stored.front().second};
}

Schedule ScheduleService::Get(std::string_view key) {
  RequireKey(key);
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kGetSchedule, key);
  if (rows.Empty()) throw core::NotFound("schedule " + std::string(key) + " does not exist");
  return ReadSchedule(rows, 0);
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

std::size_t ScheduleService::BulkPut(const std::vector<ScheduleSpec>& specs) {
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
    throw core::PrefixError(core::UserNotFound(specs[*outcome.unknown_user].user_id), label + ".",
                            label);
  }
  if (!specs.empty()) WakeSchedulers(tx);
  tx.Commit();
  return outcome.stored.size();
}

std::vector<core::TimePoint> PreviewFireTimes(const PreviewRequest& request, core::TimePoint now) {
  return NextFireTimes(request.pattern, request.zone, request.after.value_or(now), request.count);
}

void ScheduleService::RecomputeForUser(db::Transaction& tx, std::int64_t user_id) const {
  (void)RecomputeSchedulesForUser(tx, user_id, clock_.Now());
}

}  // namespace chopar::schedule
