#include "app/channel_providers.hpp"

#include <stdexcept>

#include "channels/webpush_channel.hpp"

namespace chopar::app {
namespace {

// Whether the real provider is wanted: named explicitly, or left empty with
// its credentials present.
bool Wants(const std::string& provider, const std::string& real_name, bool has_credentials,
           const char* section) {
  if (provider == "sink") return false;
  if (provider.empty()) return has_credentials;
  if (provider == real_name) return true;
  throw std::runtime_error(std::string("config: [") + section + "] provider must be \"" + real_name +
                           "\" or \"sink\", not \"" + provider + "\"");
}

}  // namespace

ChannelProviders::ChannelProviders(const Config& config, db::Pool& pool, const core::Clock& clock)
    : sink_(pool) {
  if (Wants(config.push.provider, "webpush",
            !config.push.vapid_public_key.empty() && !config.push.vapid_private_key.empty(),
            "channels.push")) {
    channels::WebPushSettings settings;
    settings.vapid_public_key = config.push.vapid_public_key;
    settings.vapid_private_key = config.push.vapid_private_key;
    settings.subject = config.push.subject;
    settings.public_url = config.server.public_url;
    settings.allow_http_endpoints = config.push.allow_http_endpoints;
    try {
      push_ = std::make_unique<channels::WebPushChannel>(settings, http_, clock);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("config: [channels.push] ") + e.what());
    }
  }
}

ChannelProviders::~ChannelProviders() = default;

delivery::ChannelSet ChannelProviders::set() {
  auto pick = [&](const std::unique_ptr<channels::Channel>& provider) -> channels::Channel& {
    return provider ? *provider : sink_;
  };
  return delivery::ChannelSet(pick(email_), pick(telegram_), pick(push_), pick(sms_));
}

std::string ChannelProviders::Describe() const {
  auto name = [](const std::unique_ptr<channels::Channel>& provider) {
    return provider ? std::string(provider->ProviderName()) : std::string("sink");
  };
  return "email=" + name(email_) + " telegram=" + name(telegram_) + " push=" + name(push_) +
         " sms=" + name(sms_);
}

}  // namespace chopar::app
