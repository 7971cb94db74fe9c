#include "hub/action_press.hpp"

#include <nlohmann/json.hpp>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/time_column.hpp"
#include "hub/inbox_state_wake.hpp"
#include "hub/queries.hpp"

namespace chopar::hub {

ActionPress PressAction(db::Pool& pool, std::int64_t user_id, std::int64_t notification_id,
                        int action) {
  auto tx = pool.Begin("press_action");
  // The row lock orders concurrent presses: the second finds the first's
  // record once the first commits.
  const auto found = tx.Exec(queries::kLockNotificationActions, notification_id, user_id);
  if (found.Empty()) {
    throw core::NotFound("notification " + std::to_string(notification_id) + " not found");
  }
  const nlohmann::json actions = nlohmann::json::parse(found.Text(0, "actions"));
  if (action < 0 || static_cast<std::size_t>(action) >= actions.size()) {
    throw core::InvalidField("n", "notification " + std::to_string(notification_id) + " has " +
                                      std::to_string(actions.size()) + " action(s); n is 0-based");
  }
  const nlohmann::json& chosen = actions[static_cast<std::size_t>(action)];
  if (!chosen.contains("event")) {
    throw core::RequestError(
        core::ErrorCode::kConflict,
        "action " + std::to_string(action) +
            " is a link (url), opened by the client; only an event action is pressed");
  }
  ActionPress press{notification_id, action, chosen["event"].get<std::string>(), {}, false};
  const auto recorded =
      tx.Exec(queries::kRecordActionPress, notification_id, user_id, action, press.event);
  if (recorded.Empty()) {
    const auto first = tx.Exec(queries::kGetActionPress, notification_id, action);
    press.pressed_at = db::TimeColumn(first, 0, "pressed_at");
    tx.Commit();
    return press;
  }
  press.pressed_at = db::TimeColumn(recorded, 0, "pressed_at");
  press.recorded = true;
  tx.Exec(queries::kEmitActionPress, notification_id, action);
  if (found.Bool(0, "unread")) {
    // Read by the press: the user's streams hear it as any mark read.
    InboxStateChange state;
    state.change = InboxChange::kRead;
    state.at = core::FormatRfc3339(press.pressed_at);
    state.ids = std::vector<std::int64_t>{notification_id};
    tx.Exec(queries::kWakeInbox, db::ArrayLiteral(InboxStateWakes(user_id, state)));
  }
  tx.Commit();
  return press;
}

}  // namespace chopar::hub
