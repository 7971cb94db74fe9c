#include "hub/channel_choice.hpp"

#include <algorithm>

namespace chopar::hub {

bool DefaultEnabled(core::ChannelKind kind) { return kind != core::ChannelKind::kSms; }

bool ChannelEnabled(const nlohmann::json& preferences, core::ChannelKind kind) {
  if (preferences.is_object()) {
    const auto it = preferences.find(core::ChannelName(kind));
    if (it != preferences.end() && it->is_boolean()) return it->get<bool>();
  }
  return DefaultEnabled(kind);
}

std::vector<core::ChannelKind> ChooseChannels(const nlohmann::json& preferences,
                                              const Addressable& addressable,
                                              const std::vector<core::ChannelKind>& requested,
                                              bool critical) {
  std::vector<core::ChannelKind> chosen;
  for (core::ChannelKind kind : core::kAllChannels) {
    const bool is_requested = std::find(requested.begin(), requested.end(), kind) != requested.end();
    if (is_requested && addressable[kind] && (critical || ChannelEnabled(preferences, kind))) {
      chosen.push_back(kind);
    }
  }
  return chosen;
}

}  // namespace chopar::hub
