#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"

namespace chopar::hub {

// Which channels a user can be reached on right now: email present; an
// active Telegram connection; at least one push subscription; a phone
// number; for a registered channel, its address in user_addresses
// (core::AddressStore says which applies to each).
using Addressable = core::PerChannel<bool>;

// What a notification is, for the preferences that name it: its type and
// its category (the template's, else the request's; none when neither
// names one). Views: the caller keeps the strings alive.
struct PreferenceScope {
  std::string_view type;
  std::optional<std::string_view> category;
};

// The default when the user's preference for a channel is not a JSON
// boolean: the channel's registered default (email, Telegram and push on;
// SMS off, it costs money).
bool DefaultEnabled(core::ChannelKind kind);

// The user's preference if it is a JSON boolean, else the default. A string
// such as "no" is not a boolean and falls back to the default.
bool ChannelEnabled(const nlohmann::json& preferences, core::ChannelKind kind);

// Whether the user wants `kind` for a notification of `scope`: the most
// specific boolean among types[T][C], types[T], categories[K][C],
// categories[K], the channel's own preference, else the default
// (docs/api.md "Preferences by category and type"). A value that is not a
// boolean (or an object, where one may be) is no setting and is passed over.
bool ChannelEnabled(const nlohmann::json& preferences, core::ChannelKind kind,
                    const PreferenceScope& scope);

// The channels a notification goes to: requested ∩ enabled ∩ addressable,
// in the order of core::AllChannels(), where enabled is
// ChannelEnabled for `scope` (the channel's own preference when the scope is
// empty). A critical notification ignores preferences, never
// addressability. Pure; thread-safe.
std::vector<core::ChannelKind> ChooseChannels(const nlohmann::json& preferences,
                                              const Addressable& addressable,
                                              const std::vector<core::ChannelKind>& requested,
                                              bool critical, const PreferenceScope& scope = {});

}  // namespace chopar::hub
