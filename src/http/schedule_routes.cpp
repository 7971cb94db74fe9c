// Recurring schedules (API.md "Schedules").
#include "http/schedule_routes.hpp"

#include "http/message.hpp"

namespace chopar::http {
namespace {

struct PutSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    return JsonResponse(200, schedules.Put(request.String("key"), ParseJsonObject(request)));
  }
};

struct GetSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    return JsonResponse(200, schedules.Get(request.String("key")));
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
    return JsonResponse(200, schedules.BulkPut(ParseJsonObject(request)));
  }
};

struct PreviewSchedule {
  schedule::ScheduleService& schedules;
  Response operator()(const Request& request) const {
    return JsonResponse(200, schedules.Preview(ParseJsonObject(request)));
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
