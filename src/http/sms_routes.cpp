// Delivery reports of the SMS provider.
#include "http/sms_routes.hpp"

#include "channels/sms/eskiz_callback.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "http/message.hpp"

namespace chopar::http {
namespace {

struct EskizCallback {
  db::Pool& pool;
  const core::Clock& clock;
  std::string secret;
  Response operator()(const Request& request) const {
    if (!core::ConstantTimeEquals(request.String("secret"), secret)) {
      throw core::NotFound("no such route");
    }
    const auto result = channels::sms::RecordEskizCallback(pool, request.body, clock);
    return JsonResponse(200, {{"recorded", result.changed}});
  }
};

}  // namespace

void RegisterSmsRoutes(Router& router, db::Pool& pool, const core::Clock& clock, std::string callback_secret) {
  router.Add("POST", "/v1/sms/eskiz/callback/{secret:str}", Auth::kNone,
             EskizCallback{pool, clock, std::move(callback_secret)});
}

}  // namespace chopar::http
