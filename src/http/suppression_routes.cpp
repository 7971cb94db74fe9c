// The suppressed addresses (docs/api.md "Suppressions").
#include "http/suppression_routes.hpp"

#include "console/suppressions.hpp"
#include "core/request_error.hpp"
#include "http/json_view.hpp"
#include "http/message.hpp"
#include "http/page_params.hpp"

namespace chopar::http {
namespace {

nlohmann::json SuppressionView(const console::Suppression& s) {
  return {{"id", s.id},
          {"channel", s.channel},
          {"address", s.address},
          {"reason", s.reason},
          {"provider", s.provider ? nlohmann::json(*s.provider) : nlohmann::json()},
          {"detail", s.detail},
          {"since", TimeView(s.since)}};
}

struct ListSuppressions {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200, PageView(console::ListSuppressions(
                          pool, request.query.Get("channel"), request.query.Get("address"),
                          LimitParam(request, 50, 500), request.query.Get("cursor")),
                      SuppressionView));
  }
};

struct DeleteSuppression {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    if (!console::RemoveSuppression(pool, request.String("channel"), request.String("address"))) {
      throw core::NotFound("no suppression of that address on that channel");
    }
    return NoContentResponse();
  }
};

}  // namespace

void RegisterSuppressionRoutes(Router& router, db::Pool& pool) {
  router.Add("GET", "/v1/suppressions", Auth::kServerKey, ListSuppressions{pool});
  router.Add("DELETE", "/v1/suppressions/{channel:str}/{address:str}", Auth::kServerKey,
             DeleteSuppression{pool});
}

}  // namespace chopar::http
