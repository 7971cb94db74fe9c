#include "channels/provider_registry.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/text.hpp"

namespace chopar::channels {
namespace {

bool IsName(std::string_view name) {
  if (name.empty() || name.size() > 32 || name.front() < 'a' || name.front() > 'z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool IsBuiltIn(core::ChannelKind kind) {
  return kind == core::ChannelKind::kEmail || kind == core::ChannelKind::kTelegram ||
         kind == core::ChannelKind::kPush || kind == core::ChannelKind::kSms;
}

std::string KeyNames(const ProviderRegistration& registration) {
  std::vector<std::string_view> names;
  for (const ProviderKey& key : registration.keys) names.push_back(key.name);
  return names.empty() ? "none" : core::ChoiceText(names);
}

// Written by RegisterProvider before the process reads it, then only read,
// as core's channel registry. A deque: the references RegisterProvider
// returns stay valid as it grows.
std::deque<ProviderRegistration>& Registry() {
  static std::deque<ProviderRegistration> registry;
  return registry;
}

}  // namespace

const std::string& ProviderContext::Value(std::string_view key) const {
  const auto found = values.find(std::string(key));
  if (found == values.end()) {
    throw std::invalid_argument("key " + std::string(key) + " is not one this provider registered");
  }
  return found->second;
}

const ProviderRegistration& RegisterProvider(ProviderRegistration registration) {
  const std::string what =
      "provider '" + registration.provider + "' of channel '" + registration.channel + "'";
  const std::optional<core::ChannelKind> kind = core::ParseChannel(registration.channel);
  if (!kind) {
    throw std::invalid_argument(what + ": no channel '" + registration.channel +
                                "' is registered (" + core::ChannelNamesText() + ")");
  }
  if (IsBuiltIn(*kind)) {
    throw std::invalid_argument(what + ": " + registration.channel +
                                "'s providers are built in, read from [" +
                                std::string(core::InfoOf(*kind).settings_section) + "]");
  }
  if (core::InfoOf(*kind).settings_section.empty()) {
    throw std::invalid_argument(what + ": the channel was registered without a settings section");
  }
  if (!IsName(registration.provider) || registration.provider == "sink") {
    throw std::invalid_argument(what +
                                ": the name must be 1 to 32 lowercase letters, digits or '_', "
                                "starting with a letter, and not sink");
  }
  for (std::size_t i = 0; i < registration.keys.size(); ++i) {
    const std::string& name = registration.keys[i].name;
    if (!IsName(name) || name == "provider") {
      throw std::invalid_argument(what + ": key '" + name +
                                  "' must be 1 to 32 lowercase letters, digits or '_', "
                                  "starting with a letter, and not provider");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (registration.keys[j].name == name) {
        throw std::invalid_argument(what + ": key '" + name + "' is listed twice");
      }
    }
  }
  if (!registration.factory) throw std::invalid_argument(what + ": no factory");
  if (FindProvider(*kind, registration.provider) != nullptr) {
    throw std::invalid_argument(what + " is registered already");
  }
  if (Registry().size() == kMaxProviders) {
    throw std::length_error("at most " + std::to_string(kMaxProviders) + " providers");
  }
  return Registry().emplace_back(std::move(registration));
}

std::vector<const ProviderRegistration*> ProvidersOf(core::ChannelKind kind) {
  std::vector<const ProviderRegistration*> found;
  const std::string_view name = core::ChannelName(kind);
  for (const ProviderRegistration& registration : Registry()) {
    if (registration.channel == name) found.push_back(&registration);
  }
  return found;
}

const ProviderRegistration* FindProvider(core::ChannelKind kind, std::string_view provider) {
  for (const ProviderRegistration* registration : ProvidersOf(kind)) {
    if (registration->provider == provider) return registration;
  }
  return nullptr;
}

ProviderValues ValuesFor(const ProviderRegistration& registration, const ProviderValues& set) {
  ProviderValues values;
  for (const ProviderKey& key : registration.keys) values.emplace(key.name, key.default_value);
  for (const auto& [key, value] : set) {
    const auto known = values.find(key);
    if (known == values.end()) {
      throw std::invalid_argument("key " + key + " does not apply to provider " +
                                  registration.provider + " (its keys: " + KeyNames(registration) +
                                  ")");
    }
    known->second = value;
  }
  return values;
}

}  // namespace chopar::channels
