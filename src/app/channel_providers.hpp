#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/config.hpp"
#include "channels/channel.hpp"
#include "channels/failover_channel.hpp"
#include "channels/sink_channel.hpp"
#include "channels/telegram/channel.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "delivery/channel_set.hpp"
#include "http/provider_routes.hpp"
#include "net/http_client.hpp"

namespace chopar::app {

// The provider of each channel, built from the configuration: for the
// built-in four the real one when its credentials are set (or its provider
// is named), else the sink; for a channel the binary registered, the
// provider its section names (Config::registered_channels), built by the
// factory registered for it (channels::RegisterProvider), else the sink.
// Owns the providers and the shared HTTP client; lives as long as the workers
// that use set(). Throws std::runtime_error for a provider that is named but
// cannot be configured (bad keys, missing URL, a factory's
// std::invalid_argument), naming the config section and key.
class ChannelProviders {
 public:
  // `sms_callback_secret` is the path secret Eskiz's delivery reports carry;
  // `inbox_secret` signs the unsubscribe links of emails. A channel with a
  // list of providers counts its circuits in `metrics` (may be null), which
  // must not render once this is gone.
  ChannelProviders(const Config& config, db::Pool& pool, const core::Clock& clock,
                   const std::string& sms_callback_secret, const std::string& inbox_secret,
                   core::MetricsRegistry* metrics = nullptr);
  ~ChannelProviders();
  ChannelProviders(const ChannelProviders&) = delete;
  ChannelProviders& operator=(const ChannelProviders&) = delete;

  [[nodiscard]] delivery::ChannelSet set();
  // The Telegram bot when Telegram is configured (the connect flow needs
  // it), else null.
  [[nodiscard]] channels::telegram::TelegramChannel* telegram_bot() const { return telegram_bot_; }
  [[nodiscard]] net::HttpClient& http() { return http_; }
  // Every channel's providers, with the circuits of the listed ones as
  // this process sees them (GET /v1/providers).
  [[nodiscard]] std::vector<http::ProviderRow> Rows() const;
  // "email=smtp telegram=sink …" for each channel, for the start-up banner.
  [[nodiscard]] std::string Describe() const;

 private:
  net::HttpClient http_;
  channels::SinkChannel sink_;
  // The real provider of each channel that has one; the others go to sink_.
  core::PerChannel<std::unique_ptr<channels::Channel>> providers_;
  channels::telegram::TelegramChannel* telegram_bot_ = nullptr;
  // The channels with a list of providers, for Rows().
  core::PerChannel<channels::FailoverChannel*> failovers_{};  // Telegram's, when it is the bot
};

}  // namespace chopar::app
