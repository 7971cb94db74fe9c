// Pressing a notification's event action (docs/api.md "Actions and
// tags"): the subscriber from the inbox, or the application for its user.
#include <charconv>

#include "core/request_error.hpp"
#include "http/api.hpp"
#include "http/notification_view.hpp"
#include "hub/action_press.hpp"

namespace chopar::http {
namespace {

// The path's {n}: an action's 0-based index. Any other text is refused
// here; an index the notification does not have, by PressAction.
int ActionIndex(const Request& request) {
  const std::string& text = request.String("n");
  int index = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (error != std::errc() || end != text.data() + text.size() || index < 0 || text.size() > 1) {
    throw core::InvalidField("n", "n must be an action's 0-based index: 0 or 1");
  }
  return index;
}

struct PressInboxAction {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200, ActionPressView(hub::PressAction(pool, *request.subscriber, request.Id("id"),
                                              ActionIndex(request))));
  }
};

// The application presses for its user (a button of its own UI, an email's
// link to its backend): the same press, the same once.
struct PressUserAction {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200, ActionPressView(hub::PressAction(pool, request.Id("id"), request.Id("notification_id"),
                                              ActionIndex(request))));
  }
};

}  // namespace

void RegisterInboxActionRoutes(Router& router, const Dependencies& deps) {
  router.Add("POST", "/v1/inbox/notifications/{id}/actions/{n:str}", Auth::kSubscriber,
             PressInboxAction{deps.pool});
  router.Add("POST", "/v1/users/{id}/notifications/{notification_id}/actions/{n:str}",
             Auth::kServerKey, PressUserAction{deps.pool});
}

}  // namespace chopar::http
