#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "db/connection.hpp"

namespace chopar::outbox {

// The events chopar writes into its own outbox, in the same transaction as
// the change each describes, when [events] emit selects them
// (docs/outbox.md, "chopar's own events").
inline constexpr std::array<std::string_view, 16> kChoparEvents = {
    "notification.created", "notification.read",      "notification.seen",
    "notification.unread",  "notification.archived",  "notification.unarchived",
    "notification.snoozed", "notification.unsnoozed", "delivery.sent",
    "delivery.failed",      "delivery.skipped",       "delivery.canceled",
    "delivery.delivered",   "delivery.bounced",       "delivery.complained",
    "audit.recorded",
};

// Whether the glob `pattern` (TypePatterns) selects at least one of them.
bool MatchesAnyChoparEvent(std::string_view pattern);

// "notification.created, notification.read, …", for messages.
std::string ChoparEventNames();

// The events of kChoparEvents that some glob of `patterns` selects, in
// that order.
std::vector<std::string_view> SelectedChoparEvents(const std::vector<std::string>& patterns);

// The session setting that chopar's own-event triggers read (migration 0010):
// the selected events between commas, ",delivery.sent,delivery.failed,".
inline constexpr const char* kEventsSetting = "chopar.events";

// What every connection of chopar's own pool starts with for [events] emit
// `patterns` (globs): kEventsSetting listing each event some pattern
// selects; no setting at all when none is, so the triggers stay idle.
db::ServerSettings EventSessionSettings(const std::vector<std::string>& patterns);

// Installs the triggers that write chopar's own events (migration 0010,
// chopar.enable_own_events) in chopar's database when they are missing;
// a no-op once they are there. A database where this never ran has no
// trigger on its notifications and deliveries. Throws db::DbError.
void EnableChoparEvents(db::Connection& conn);

}  // namespace chopar::outbox
