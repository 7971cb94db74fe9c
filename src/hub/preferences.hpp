#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/channel_kind.hpp"

namespace chopar::hub {

// A user's preferences (docs/api.md "Preferences by category and type"):
// {"email": true, …, "categories": {"marketing": false, "tasks": {"email":
// false}}, "types": {"task.due": {"telegram": false}}}. Pure; thread-safe.

// Checks what a client sends as preferences: an object; `categories` and
// `types`, when given and not null, objects whose keys follow the type
// grammar and whose values are a boolean, null (removed) or an object of
// channel names to a boolean or null. The channels' own members keep
// today's rule (a value that is not a boolean means the default). Throws
// core::RequestError kInvalidField naming the member
// ("preferences.categories.tasks.fax") with `field_prefix` before it.
void ValidatePreferences(const nlohmann::json& preferences, const std::string& field_prefix);

// `preferences` with `channel` turned off for one category or type (`group`
// "categories" or "types"): group[name][channel] = false, everything else
// as it was. A boolean group[name] becomes the object it meant, spelled out
// per channel, so turning one channel off keeps the others as they were.
nlohmann::json WithChannelOff(nlohmann::json preferences, std::string_view group,
                              const std::string& name, core::ChannelKind channel);

// `preferences` with category `name` set to `wanted` on each channel, each
// as sparingly as it can be said: a channel whose wanted value is what the
// user would get without the category's setting has none; the others get
// categories[name][channel]. An empty result removes the category.
nlohmann::json WithCategoryChannels(nlohmann::json preferences, const std::string& name,
                                    const core::PerChannel<bool>& wanted);

}  // namespace chopar::hub
