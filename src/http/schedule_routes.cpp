// Recurring schedules (docs/api.md "Schedules").
#include "http/schedule_routes.hpp"

#include "core/time_format.hpp"
#include "http/message.hpp"
#include "http/schedule_view.hpp"

namespace chopar::http {
namespace {

struct PutSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    const auto spec = schedule::ParseScheduleSpec(request.String("key"), ParseJsonObject(request));
    return JsonResponse(200, StoredScheduleView(schedules.Put(spec)));
  }
};

struct GetSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    return JsonResponse(200, ScheduleView(schedules.Get(request.String("key"))));
  }
};

struct DeleteSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    schedules.Delete(request.String("key"));
    return NoContentResponse();
  }
};

struct BulkPutSchedules {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    const auto specs = schedule::ParseScheduleSpecs(ParseJsonObject(request));
    return JsonResponse(200, {{"upserted", schedules.BulkPut(specs)}});
  }
};

struct PreviewSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    const auto fire_at = schedules.Preview(schedule::ParsePreviewRequest(ParseJsonObject(request)));
    nlohmann::json instants = nlohmann::json::array();
    for (core::TimePoint t : fire_at) instants.push_back(core::FormatRfc3339(t));
    return JsonResponse(200, {{"fire_at", std::move(instants)}});
  }
};

}  // namespace

void RegisterScheduleRoutes(Router& router, schedule::ScheduleService& schedules) {
  // The literal route is matched before the {key} pattern.
  router.Add("POST", "/v1/schedules/preview", Auth::kServerKey, PreviewSchedule{schedules});
  router.Add("PUT", "/v1/schedules", Auth::kServerKey, BulkPutSchedules{schedules}, kBulkScheduleBodyLimit);
  router.Add("PUT", "/v1/schedules/{key:str}", Auth::kServerKey, PutSchedule{schedules});
  router.Add("GET", "/v1/schedules/{key:str}", Auth::kServerKey, GetSchedule{schedules});
  router.Add("DELETE", "/v1/schedules/{key:str}", Auth::kServerKey, DeleteSchedule{schedules});
}

}  // namespace chopar::http
