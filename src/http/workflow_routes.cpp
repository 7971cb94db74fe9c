// Workflows (docs/api.md "Workflows").
#include "http/workflow_routes.hpp"

#include "http/message.hpp"

namespace chopar::http {
namespace {

struct CancelNotifications {
  workflow::engine::Canceler& canceler;
  Response operator()(const Request& request) const {
    const auto parsed = workflow::engine::ParseCancelRequest(ParseJsonObject(request));
    return JsonResponse(200, nlohmann::json{{"canceled", canceler.Cancel(parsed)}});
  }
};

}  // namespace

void RegisterWorkflowRoutes(Router& router, workflow::engine::Canceler& canceler) {
  router.Add("POST", "/v1/notifications/cancel", Auth::kServerKey, CancelNotifications{canceler});
}

}  // namespace chopar::http
