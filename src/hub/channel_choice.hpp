#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/channel_kind.hpp"

namespace chopar::hub {

// Which channels a user can be reached on right now: email present; an
// active Telegram connection; at least one push subscription; a phone number.
using Addressable = core::PerChannel<bool>;

// The default when the user's preference for a channel is not a JSON
// boolean: email, Telegram and push on; SMS off (it costs money).
bool DefaultEnabled(core::ChannelKind kind);

// The user's preference if it is a JSON boolean, else the default. A string
// such as "no" is not a boolean and falls back to the default.
bool ChannelEnabled(const nlohmann::json& preferences, core::ChannelKind kind);

// The channels a notification goes to: requested ∩ enabled ∩ addressable,
// in the order email, telegram, push, sms. A critical notification ignores
// preferences, never addressability. Pure; thread-safe.
std::vector<core::ChannelKind> ChooseChannels(const nlohmann::json& preferences,
                                              const Addressable& addressable,
                                              const std::vector<core::ChannelKind>& requested,
                                              bool critical);

}  // namespace chopar::hub
