#include "hub/preferences.hpp"

#include "core/request_error.hpp"
#include "hub/channel_choice.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {

void ValidatePreferences(const nlohmann::json& preferences, const std::string& field_prefix) {
  const std::string field =
      field_prefix.empty() ? "preferences" : field_prefix.substr(0, field_prefix.size() - 1);
  if (!preferences.is_object()) throw core::InvalidField(field, field + " must be an object");
  RequireNoNul(preferences, field.c_str());
  for (const char* group : {"categories", "types"}) {
    const auto it = preferences.find(group);
    if (it == preferences.end() || it->is_null()) continue;
    const std::string group_field = field_prefix + group;
    if (!it->is_object()) {
      throw core::InvalidField(group_field,
                               group_field + " must be an object such as {\"marketing\": false}");
    }
    for (const auto& [name, setting] : it->items()) {
      const std::string name_field = group_field + "." + name;
      if (!IsValidType(name) || name.size() > 100) {
        throw core::InvalidField(name_field,
                                 name_field + ": a name must match ^[a-z]+(\\.[a-z_]+)*$");
      }
      if (setting.is_boolean() || setting.is_null()) continue;
      if (!setting.is_object()) {
        throw core::InvalidField(name_field,
                                 name_field + " must be true, false or {\"email\": false, …}");
      }
      for (const auto& [channel, value] : setting.items()) {
        if (!core::ParseChannel(channel)) {
          throw core::InvalidField(
              name_field + "." + channel,
              "unknown channel " + channel + "; expected email, telegram, push or sms");
        }
        if (!value.is_boolean() && !value.is_null()) {
          throw core::InvalidField(name_field + "." + channel,
                                   name_field + "." + channel + " must be true or false");
        }
      }
    }
  }
}

nlohmann::json WithChannelOff(nlohmann::json preferences, std::string_view group,
                              const std::string& name, core::ChannelKind channel) {
  if (!preferences.is_object()) preferences = nlohmann::json::object();
  nlohmann::json& groups = preferences[std::string(group)];
  if (!groups.is_object()) groups = nlohmann::json::object();
  nlohmann::json& setting = groups[name];
  if (setting.is_boolean()) {
    const bool all = setting.get<bool>();
    setting = nlohmann::json::object();
    for (core::ChannelKind kind : core::kAllChannels)
      setting[std::string(core::ChannelName(kind))] = all;
  } else if (!setting.is_object()) {
    setting = nlohmann::json::object();
  }
  setting[std::string(core::ChannelName(channel))] = false;
  return preferences;
}

nlohmann::json WithCategoryChannels(nlohmann::json preferences, const std::string& name,
                                    const core::PerChannel<bool>& wanted) {
  if (!preferences.is_object()) preferences = nlohmann::json::object();
  nlohmann::json& groups = preferences["categories"];
  if (!groups.is_object()) groups = nlohmann::json::object();
  groups.erase(name);
  nlohmann::json setting = nlohmann::json::object();
  for (core::ChannelKind kind : core::kAllChannels) {
    if (ChannelEnabled(preferences, kind) != wanted[kind]) {
      setting[std::string(core::ChannelName(kind))] = wanted[kind];
    }
  }
  if (!setting.empty()) groups[name] = std::move(setting);
  if (groups.empty()) preferences.erase("categories");
  return preferences;
}

}  // namespace chopar::hub
