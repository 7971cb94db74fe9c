#include "app/channel_providers.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "channels/email/channel.hpp"
#include "channels/email/http_email_channel.hpp"
#include "channels/email/mailgun.hpp"
#include "channels/email/postmark.hpp"
#include "channels/email/sendgrid.hpp"
#include "channels/email/ses.hpp"
#include "channels/failover_channel.hpp"
#include "channels/provider_registry.hpp"
#include "channels/sms/eskiz_channel.hpp"
#include "channels/sms/http_sms_channel.hpp"
#include "channels/sms/playmobile.hpp"
#include "channels/sms/twilio.hpp"
#include "channels/sms/twilio_callback.hpp"
#include "channels/webpush/channel.hpp"
#include "core/text.hpp"

namespace chopar::app {
namespace {

// Whether the real provider is wanted: named (the configuration's rules
// allow only it, "sink" or nothing), or left unset with its credentials
// present.
bool Wants(const std::string& provider, const std::string& real_name, bool has_credentials) {
  if (provider.empty()) return has_credentials;
  return provider == real_name;
}

// The email provider `e` names, or null for the sink. `section` names it
// in errors ("[channels.email]", "[[channels.email.providers]] ses").
std::unique_ptr<channels::Channel> BuildEmail(const EmailProvider& e, const Config& config,
                                              net::HttpClient& http, const core::Clock& clock,
                                              const std::string& inbox_secret,
                                              const std::string& section) {
  channels::email::EmailSettings settings = e.smtp;
  settings.public_url = config.server.public_url;
  settings.unsubscribe_secret = inbox_secret;
  settings.one_click_unsubscribe = true;
  try {
    if (Wants(e.provider, "smtp", !e.smtp.smtp_url.empty())) {
      return std::make_unique<channels::email::EmailChannel>(settings, clock);
    }
    // The email services called over HTTP: the SMTP path's messages, sent
    // by their API.
    std::optional<channels::email::EmailApi> api;
    if (e.provider == "ses") api = channels::email::SesApi(settings, e.ses);
    if (e.provider == "mailgun") api = channels::email::MailgunApi(e.mailgun);
    if (e.provider == "postmark") api = channels::email::PostmarkApi(settings, e.postmark);
    if (e.provider == "sendgrid") api = channels::email::SendGridApi(settings, e.sendgrid);
    if (!api) return nullptr;
    return std::make_unique<channels::email::HttpEmailChannel>(settings, std::move(*api), http,
                                                               clock);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("config: " + section + " " + e.what());
  }
}

// The SMS provider `s` names, or null for the sink.
std::unique_ptr<channels::Channel> BuildSms(const SmsProvider& s, const Config& config,
                                            net::HttpClient& http, db::Pool& pool,
                                            const core::Clock& clock,
                                            const std::string& sms_callback_secret,
                                            const std::string& section) {
  const std::string public_url(core::WithoutTrailingSlashes(config.server.public_url));
  const channels::sms::SmsText text{.public_url = config.server.public_url};
  try {
    if (s.provider == "twilio") {
      channels::sms::TwilioSettings settings = s.twilio;
      settings.status_callback_url = public_url + std::string(channels::sms::kTwilioStatusPath);
      return std::make_unique<channels::sms::HttpSmsChannel>(
          channels::sms::TwilioApi(std::move(settings)), text, http);
    }
    if (s.provider == "playmobile") {
      return std::make_unique<channels::sms::HttpSmsChannel>(
          channels::sms::PlaymobileApi(s.playmobile), text, http);
    }
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("config: " + section + " " + e.what());
  }
  if (!Wants(s.provider, "eskiz", !s.eskiz.email.empty() && !s.eskiz.password.empty())) {
    return nullptr;
  }
  channels::sms::EskizSettings settings = s.eskiz;
  settings.public_url = config.server.public_url;
  settings.callback_url = public_url + "/v1/sms/eskiz/callback/" + sms_callback_secret;
  return std::make_unique<channels::sms::EskizChannel>(settings, http, pool, clock);
}

// A channel of [[channels.<channel>.providers]]: every entry built by
// `build`, in order, behind one FailoverChannel.
template <typename Settings, typename Build>
std::unique_ptr<channels::Channel> BuildList(const std::string& channel,
                                             const std::vector<ListedProvider<Settings>>& entries,
                                             const core::Clock& clock,
                                             core::MetricsRegistry* metrics, Build build) {
  std::vector<channels::ProviderSlot> slots;
  for (const ListedProvider<Settings>& entry : entries) {
    const std::string where = "[[channels." + channel + ".providers]] " + entry.name;
    std::unique_ptr<channels::Channel> built = build(entry.settings, where);
    if (!built) throw std::runtime_error("config: " + where + " built no provider");
    slots.push_back(
        {entry.name, entry.settings.provider, std::move(built), entry.weight, entry.breaker});
  }
  try {
    return std::make_unique<channels::FailoverChannel>(channel, std::move(slots), clock, metrics);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("config: [[channels." + channel + ".providers]] " + e.what());
  }
}

}  // namespace

ChannelProviders::ChannelProviders(const Config& config, db::Pool& pool, const core::Clock& clock,
                                   const std::string& sms_callback_secret,
                                   const std::string& inbox_secret, core::MetricsRegistry* metrics)
    : sink_(pool, config.server.public_url, inbox_secret) {
  const auto email = [&](const EmailProvider& e, const std::string& section) {
    return BuildEmail(e, config, http_, clock, inbox_secret, section);
  };
  const auto sms = [&](const SmsProvider& s, const std::string& section) {
    return BuildSms(s, config, http_, pool, clock, sms_callback_secret, section);
  };
  providers_[core::ChannelKind::kEmail] =
      config.email.providers.empty()
          ? email(config.email, "[channels.email]")
          : BuildList("email", config.email.providers, clock, metrics, email);
  providers_[core::ChannelKind::kSms] =
      config.sms.providers.empty() ? sms(config.sms, "[channels.sms]")
                                   : BuildList("sms", config.sms.providers, clock, metrics, sms);
  for (const core::ChannelKind kind : {core::ChannelKind::kEmail, core::ChannelKind::kSms}) {
    if (auto* failover = dynamic_cast<channels::FailoverChannel*>(providers_[kind].get())) {
      failovers_[kind] = failover;
    }
  }
  if (Wants(config.telegram.provider, "telegram", !config.telegram.bot.bot_token.empty())) {
    if (config.telegram.bot.bot_token.empty()) {
      throw std::runtime_error(
          "config: [channels.telegram] provider is telegram but bot_token is empty");
    }
    channels::telegram::TelegramSettings settings = config.telegram.bot;
    settings.public_url = config.server.public_url;
    auto bot = std::make_unique<channels::telegram::TelegramChannel>(settings, http_, clock);
    telegram_bot_ = bot.get();
    providers_[core::ChannelKind::kTelegram] = std::move(bot);
  }
  if (Wants(config.push.provider, "webpush",
            !config.push.webpush.vapid_public_key.empty() &&
                !config.push.webpush.vapid_private_key.empty())) {
    channels::webpush::WebPushSettings settings = config.push.webpush;
    settings.public_url = config.server.public_url;
    try {
      providers_[core::ChannelKind::kPush] =
          std::make_unique<channels::webpush::WebPushChannel>(settings, http_, clock);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("config: [channels.push] ") + e.what());
    }
  }
  for (const auto& [name, channel] : config.registered_channels) {
    if (channel.provider.empty() || channel.provider == "sink") continue;
    const std::optional<core::ChannelKind> kind = core::ParseChannel(name);
    if (!kind) throw std::runtime_error("config: no channel " + name + " is registered");
    const std::string section = "[" + std::string(core::InfoOf(*kind).settings_section) + "]";
    const channels::ProviderRegistration* registration =
        channels::FindProvider(*kind, channel.provider);
    // LoadConfig refuses such a name; a Config written in code may still hold one.
    if (registration == nullptr) {
      throw std::runtime_error("config: " + section + " provider " + channel.provider +
                               " is not registered");
    }
    try {
      const channels::ProviderContext context{
          .kind = *kind,
          .section = std::string(core::InfoOf(*kind).settings_section),
          .values = channels::ValuesFor(*registration, channel.values),
          .http = http_,
          .pool = pool,
          .clock = clock,
          .public_url = config.server.public_url,
      };
      providers_[*kind] = registration->factory(context);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error("config: " + section + " " + e.what());
    }
    if (!providers_[*kind]) {
      throw std::runtime_error("config: " + section + " provider " + channel.provider +
                               " built no channel");
    }
  }
}

ChannelProviders::~ChannelProviders() = default;

delivery::ChannelSet ChannelProviders::set() {
  delivery::ChannelSet set = delivery::ChannelSet::AllTo(sink_);
  for (const core::ChannelKind kind : core::AllChannels()) {
    if (providers_[kind]) set = set.With(kind, *providers_[kind]);
  }
  return set;
}

std::vector<http::ProviderRow> ChannelProviders::Rows() const {
  std::vector<http::ProviderRow> rows;
  for (const core::ChannelKind kind : core::AllChannels()) {
    if (const channels::FailoverChannel* failover = failovers_[kind]) {
      for (channels::ProviderHealth& provider : failover->Health()) {
        rows.push_back({kind, provider.name, provider.kind, provider});
      }
      continue;
    }
    const std::string name(providers_[kind] ? providers_[kind]->ProviderName() : "sink");
    rows.push_back({kind, name, name, std::nullopt});
  }
  return rows;
}

std::string ChannelProviders::Describe() const {
  std::string text;
  for (const core::ChannelKind kind : core::AllChannels()) {
    if (!text.empty()) text += ' ';
    text += std::string(core::ChannelName(kind)) + "=" +
            std::string(providers_[kind] ? providers_[kind]->ProviderName() : "sink");
  }
  return text;
}

}  // namespace chopar::app
