#pragma once

#include <array>
#include <string>
#include <string_view>

namespace chopar::outbox {

// The events chopar writes into its own outbox, in the same transaction as
// the change each describes, when [events] emit selects them
// (docs/outbox.md, "chopar's own events").
inline constexpr std::array<std::string_view, 6> kChoparEvents = {
    "notification.created", "notification.read", "delivery.sent",
    "delivery.failed",      "delivery.skipped",  "delivery.canceled",
};

// Whether the glob `pattern` (TypePatterns) selects at least one of them.
bool MatchesAnyChoparEvent(std::string_view pattern);

// "notification.created, notification.read, …", for messages.
std::string ChoparEventNames();

}  // namespace chopar::outbox
