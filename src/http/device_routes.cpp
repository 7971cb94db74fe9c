#include "http/device_routes.hpp"

#include "http/json_view.hpp"
#include "http/message.hpp"
#include "hub/device.hpp"

namespace chopar::http {

nlohmann::json DeviceView(const hub::Device& device) {
  return {{"id", device.id},
          {"platform", device.platform},
          {"token", device.token},
          {"app", device.app},
          {"created_at", TimeView(device.created_at)},
          {"updated_at", TimeView(device.updated_at)}};
}

namespace {

Response AddedView(const hub::DeviceService::Added& added) {
  return JsonResponse(added.created ? 201 : 200, DeviceView(added.device));
}

struct AddDevice {
  hub::DeviceService devices;
  Response operator()(const Request& request) const {
    return AddedView(devices.Add(request.Id("id"), hub::ParseDevice(ParseJsonObject(request)),
                                 hub::DeviceService::TokenOfAnother::kMove));
  }
};

struct AddInboxDevice {
  hub::DeviceService devices;
  Response operator()(const Request& request) const {
    return AddedView(devices.Add(*request.subscriber, hub::ParseDevice(ParseJsonObject(request)),
                                 hub::DeviceService::TokenOfAnother::kRefuse));
  }
};

struct ListDevices {
  hub::DeviceService devices;
  Response operator()(const Request& request) const {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& device : devices.List(request.Id("id"))) {
      items.push_back(DeviceView(device));
    }
    return JsonResponse(200, {{"items", std::move(items)}});
  }
};

struct DeleteDevice {
  hub::DeviceService devices;
  Response operator()(const Request& request) const {
    devices.Delete(request.Id("id"), request.Id("device_id"));
    return NoContentResponse();
  }
};

}  // namespace

void RegisterDeviceRoutes(Router& router, db::Pool& pool) {
  const hub::DeviceService devices(pool);
  router.Add("POST", "/v1/users/{id}/devices", Auth::kServerKey, AddDevice{devices});
  router.Add("GET", "/v1/users/{id}/devices", Auth::kServerKey, ListDevices{devices});
  router.Add("DELETE", "/v1/users/{id}/devices/{device_id}", Auth::kServerKey,
             DeleteDevice{devices});
  router.Add("POST", "/v1/inbox/devices", Auth::kSubscriber, AddInboxDevice{devices});
}

}  // namespace chopar::http
