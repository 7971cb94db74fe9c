#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/channel_kind.hpp"

namespace chopar::hub {

// A user's preferences (docs/api.md "Preferences by category and type"):
// {"email": true, …, "categories": {"marketing": false, "tasks": {"email":
// false}}, "types": {"task.due": {"telegram": false}}}. Pure; thread-safe.

// The bounds of a user's preferences: at most kMaxPreferenceNames names in
// `categories` and as many in `types`, and kMaxPreferencesBytes as compact
// JSON, what a client sends and what is stored after a merge alike (the
// users CHECK bounds the stored text at twice that, as a last layer).
inline constexpr std::size_t kMaxPreferenceNames = 100;
inline constexpr std::size_t kMaxPreferencesBytes = 16 * 1024;

// Checks what a client sends as preferences: an object whose members are
// the registered channels (`email`, `telegram`, `push`, `sms`, …) with a boolean or null
// (removed), and `categories` and `types`, each null or an object of at most
// kMaxPreferenceNames names that follow the type grammar, whose values are a
// boolean, null (removed) or an object of channel names to a boolean or
// null. Any other member may only be null (removed: a key stored before
// these rules can be cleared). The whole is at most kMaxPreferencesBytes.
// Throws core::RequestError kInvalidField naming the member
// ("preferences.categories.tasks.fax", "preferences.junk") with
// `field_prefix` before it.
void ValidatePreferences(const nlohmann::json& preferences, const std::string& field_prefix);

// `stored` merged with `given` (validated) as PUT /v1/users/{id} and PUT
// /v1/inbox/preferences merge them: key by key at the top level, a null
// removing the key, and no null left anywhere (PostgreSQL's
// jsonb_strip_nulls(stored || given)).
nlohmann::json MergedPreferences(nlohmann::json stored, const nlohmann::json& given);

// The preferences a notification in a tenant is chosen by: the tenant's
// default preferences (`tenant_defaults`, a user's shape) with the user's
// own (`own`) over them — every channel, category and type the user set
// is the user's, the rest the tenant's; what neither sets falls to the
// channels' defaults. Within `categories` and `types` a name both set is
// merged channel by channel (a boolean for a whole name is that value on
// every channel), the user's winning. Pure; thread-safe.
nlohmann::json WithTenantDefaults(const nlohmann::json& tenant_defaults, const nlohmann::json& own);

// Checks preferences about to be stored (after a merge or a change):
// within kMaxPreferenceNames per group and kMaxPreferencesBytes. Only the
// bounds: a member stored before the rules above stays. Throws
// core::RequestError kInvalidField `field` ("preferences").
void CheckStoredPreferences(const nlohmann::json& preferences, const std::string& field);

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
