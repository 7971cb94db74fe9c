#include "hub/preferences.hpp"

#include <string_view>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/request_error.hpp"
#include "core/text.hpp"
#include "hub/channel_choice.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {

namespace {

// "email, telegram, push, sms, categories or types": the members a
// preferences object may have, for its errors.
std::string MemberNamesText() {
  std::vector<std::string_view> names;
  for (const core::ChannelKind kind : core::AllChannels()) names.push_back(core::ChannelName(kind));
  names.push_back("categories");
  names.push_back("types");
  return core::ChoiceText(names);
}

void CheckNameCount(const nlohmann::json& group, const std::string& group_field) {
  if (group.size() > kMaxPreferenceNames) {
    throw core::InvalidField(group_field, group_field + " has " + std::to_string(group.size()) +
                                              " names, more than the " +
                                              std::to_string(kMaxPreferenceNames) + " allowed");
  }
}

void CheckSize(const nlohmann::json& preferences, const std::string& field, const char* what) {
  if (const std::size_t bytes = preferences.dump().size(); bytes > kMaxPreferencesBytes) {
    throw core::InvalidField(field, field + what + std::to_string(bytes) +
                                        " bytes of JSON, more than the " +
                                        std::to_string(kMaxPreferencesBytes) + " allowed");
  }
}

nlohmann::json WithoutNulls(nlohmann::json value) {
  if (!value.is_object()) return value;
  nlohmann::json out = nlohmann::json::object();
  for (auto& [key, member] : value.items()) {
    if (!member.is_null()) out[key] = WithoutNulls(std::move(member));
  }
  return out;
}

}  // namespace

void ValidatePreferences(const nlohmann::json& preferences, const std::string& field_prefix) {
  const std::string field =
      field_prefix.empty() ? "preferences" : field_prefix.substr(0, field_prefix.size() - 1);
  if (!preferences.is_object()) throw core::InvalidField(field, field + " must be an object");
  RequireNoNul(preferences, field.c_str());
  for (const auto& [key, value] : preferences.items()) {
    if (value.is_null() || key == "categories" || key == "types") continue;
    const std::string member_field = field_prefix + key;
    if (!core::ParseChannel(key)) {
      throw core::InvalidField(
          member_field, "unknown member " + member_field + "; expected " + MemberNamesText() +
                            " (any other member may only be null, which removes it)");
    }
    if (!value.is_boolean()) {
      throw core::InvalidField(member_field, member_field + " must be true, false or null");
    }
  }
  for (const char* group : {"categories", "types"}) {
    const auto it = preferences.find(group);
    if (it == preferences.end() || it->is_null()) continue;
    const std::string group_field = field_prefix + group;
    if (!it->is_object()) {
      throw core::InvalidField(group_field,
                               group_field + " must be an object such as {\"marketing\": false}");
    }
    CheckNameCount(*it, group_field);
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
              "unknown channel " + channel + "; expected " + core::ChannelNamesText());
        }
        if (!value.is_boolean() && !value.is_null()) {
          throw core::InvalidField(name_field + "." + channel,
                                   name_field + "." + channel + " must be true or false");
        }
      }
    }
  }
  CheckSize(preferences, field, " takes ");
}

nlohmann::json MergedPreferences(nlohmann::json stored, const nlohmann::json& given) {
  if (!stored.is_object()) stored = nlohmann::json::object();
  for (const auto& [key, value] : given.items()) stored[key] = value;
  return WithoutNulls(std::move(stored));
}

void CheckStoredPreferences(const nlohmann::json& preferences, const std::string& field) {
  for (const char* group : {"categories", "types"}) {
    const auto it = preferences.find(group);
    if (it != preferences.end() && it->is_object()) CheckNameCount(*it, field + "." + group);
  }
  CheckSize(preferences, field, " would take ");
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
    for (core::ChannelKind kind : core::AllChannels())
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
  for (core::ChannelKind kind : core::AllChannels()) {
    if (ChannelEnabled(preferences, kind) != wanted[kind]) {
      setting[std::string(core::ChannelName(kind))] = wanted[kind];
    }
  }
  if (!setting.empty()) groups[name] = std::move(setting);
  if (groups.empty()) preferences.erase("categories");
  return preferences;
}

nlohmann::json WithTenantDefaults(const nlohmann::json& tenant_defaults,
                                  const nlohmann::json& own) {
  if (!tenant_defaults.is_object() || tenant_defaults.empty()) return own;
  if (!own.is_object()) return tenant_defaults;
  // A whole name's boolean spelled out per channel, so that one channel
  // the user set leaves the tenant's value on the others.
  const auto per_channel = [](const nlohmann::json& value) {
    if (value.is_object()) return value;
    nlohmann::json spelled = nlohmann::json::object();
    if (!value.is_boolean()) return spelled;
    for (const core::ChannelKind kind : core::AllChannels()) {
      spelled[std::string(core::ChannelName(kind))] = value;
    }
    return spelled;
  };
  nlohmann::json merged = tenant_defaults;
  for (const auto& [key, value] : own.items()) {
    const bool group = key == "categories" || key == "types";
    if (!group || !value.is_object() || !merged[key].is_object()) {
      merged[key] = value;
      continue;
    }
    nlohmann::json& names = merged[key];
    for (const auto& [name, setting] : value.items()) {
      if (!setting.is_object() || !names.contains(name)) {
        names[name] = setting;
        continue;
      }
      nlohmann::json channels = per_channel(names[name]);
      for (const auto& [channel, enabled] : setting.items()) channels[channel] = enabled;
      names[name] = std::move(channels);
    }
  }
  return merged;
}

}  // namespace chopar::hub
