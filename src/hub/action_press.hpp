#pragma once

#include <cstdint>
#include <string>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::hub {

// A press of a notification's event action (docs/api.md "Actions and
// tags"): the first one, recorded, or what a repeat finds. A value.
struct ActionPress {
  std::int64_t notification_id = 0;
  int action = 0;  // its index in the notification's actions
  std::string event;
  core::TimePoint pressed_at;  // the first press's
  bool recorded = false;       // this call recorded it
};

// User `user_id` presses action `action` of notification `notification_id`.
// The first press, in one transaction: records it in
// chopar.notification_actions, sets the action's "pressed_at" in the
// notification's actions, marks the notification read (and seen) if it was
// not, writes the event `notification.action` into chopar's outbox (always,
// whatever [events] emit says: docs/outbox.md) and, when it was unread,
// tells the user's inbox streams in every process (a `state` event of
// change "read", as a mark read does). A repeat, however concurrent (the notification's row lock
// orders them), writes nothing and returns the first press with
// `recorded` false.
//
// Throws core::RequestError kNotFound (no such notification of the user),
// kInvalidField "n" (it has no action `action`), kConflict (that action is
// a link, not an event); db::DbError. Thread-safe.
ActionPress PressAction(db::Pool& pool, std::int64_t user_id, std::int64_t notification_id,
                        int action);

}  // namespace chopar::hub
