// Pressing a notification's event action from the inbox (docs/api.md
// "Actions and tags").
#include <charconv>

#include "core/request_error.hpp"
#include "http/api.hpp"
#include "http/json_view.hpp"
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
    const hub::ActionPress press =
        hub::PressAction(pool, *request.subscriber, request.Id("id"), ActionIndex(request));
    return JsonResponse(200, {{"notification_id", press.notification_id},
                              {"action", press.action},
                              {"event", press.event},
                              {"pressed_at", TimeView(press.pressed_at)},
                              {"recorded", press.recorded}});
  }
};

}  // namespace

void RegisterInboxActionRoutes(Router& router, const Dependencies& deps) {
  router.Add("POST", "/v1/inbox/notifications/{id}/actions/{n:str}", Auth::kSubscriber,
             PressInboxAction{deps.pool});
}

}  // namespace chopar::http
