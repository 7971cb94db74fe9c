#include "hub/channel_choice.hpp"

#include <algorithm>

namespace chopar::hub {
namespace {

// preferences[group][name]: a boolean for the whole scope, or an object of
// per-channel booleans; nullopt when neither says anything about `kind`.
// Returns the per-channel setting first, the scope-wide one second.
std::optional<bool> ScopeSetting(const nlohmann::json& preferences, const char* group,
                                 std::string_view name, core::ChannelKind kind) {
  const auto groups = preferences.find(group);
  if (groups == preferences.end() || !groups->is_object()) return std::nullopt;
  const auto setting = groups->find(name);
  if (setting == groups->end()) return std::nullopt;
  if (setting->is_boolean()) return setting->get<bool>();
  if (setting->is_object()) {
    const auto channel = setting->find(core::ChannelName(kind));
    if (channel != setting->end() && channel->is_boolean()) return channel->get<bool>();
  }
  return std::nullopt;
}

}  // namespace

bool DefaultEnabled(core::ChannelKind kind) { return core::InfoOf(kind).on_by_default; }

bool ChannelEnabled(const nlohmann::json& preferences, core::ChannelKind kind) {
  if (preferences.is_object()) {
    const auto it = preferences.find(core::ChannelName(kind));
    if (it != preferences.end() && it->is_boolean()) return it->get<bool>();
  }
  return DefaultEnabled(kind);
}

bool ChannelEnabled(const nlohmann::json& preferences, core::ChannelKind kind,
                    const PreferenceScope& scope) {
  if (preferences.is_object()) {
    // A type's object that names other channels still leaves the type-wide
    // boolean out: {"types": {"t": {"sms": true}}} says nothing about email.
    if (!scope.type.empty()) {
      if (const auto setting = ScopeSetting(preferences, "types", scope.type, kind))
        return *setting;
    }
    if (scope.category) {
      if (const auto setting = ScopeSetting(preferences, "categories", *scope.category, kind))
        return *setting;
    }
  }
  return ChannelEnabled(preferences, kind);
}

std::vector<core::ChannelKind> ChooseChannels(const nlohmann::json& preferences,
                                              const Addressable& addressable,
                                              const std::vector<core::ChannelKind>& requested,
                                              bool critical, const PreferenceScope& scope) {
  std::vector<core::ChannelKind> chosen;
  for (core::ChannelKind kind : core::AllChannels()) {
    const bool is_requested =
        std::find(requested.begin(), requested.end(), kind) != requested.end();
    if (is_requested && addressable[kind] &&
        (critical || ChannelEnabled(preferences, kind, scope))) {
      chosen.push_back(kind);
    }
  }
  return chosen;
}

}  // namespace chopar::hub
