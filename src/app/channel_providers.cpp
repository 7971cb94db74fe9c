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
#include "channels/provider_registry.hpp"
#include "channels/sms/eskiz_channel.hpp"
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

}  // namespace

ChannelProviders::ChannelProviders(const Config& config, db::Pool& pool, const core::Clock& clock,
                                   const std::string& sms_callback_secret,
                                   const std::string& inbox_secret)
    : sink_(pool, config.server.public_url, inbox_secret) {
  if (Wants(config.email.provider, "smtp", !config.email.smtp.smtp_url.empty())) {
    channels::email::EmailSettings settings = config.email.smtp;
    settings.public_url = config.server.public_url;
    settings.unsubscribe_secret = inbox_secret;
    settings.one_click_unsubscribe = true;
    try {
      providers_[core::ChannelKind::kEmail] =
          std::make_unique<channels::email::EmailChannel>(settings, clock);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("config: [channels.email] ") + e.what());
    }
  }
  // The email services called over HTTP: the SMTP path's messages, sent
  // by their API.
  const std::string& email_provider = config.email.provider;
  if (email_provider == "ses" || email_provider == "mailgun" || email_provider == "postmark" ||
      email_provider == "sendgrid") {
    channels::email::EmailSettings settings = config.email.smtp;
    settings.public_url = config.server.public_url;
    settings.unsubscribe_secret = inbox_secret;
    settings.one_click_unsubscribe = true;
    try {
      channels::email::EmailApi api =
          email_provider == "ses"       ? channels::email::SesApi(settings, config.email.ses)
          : email_provider == "mailgun" ? channels::email::MailgunApi(config.email.mailgun)
          : email_provider == "postmark"
              ? channels::email::PostmarkApi(settings, config.email.postmark)
              : channels::email::SendGridApi(settings, config.email.sendgrid);
      providers_[core::ChannelKind::kEmail] = std::make_unique<channels::email::HttpEmailChannel>(
          settings, std::move(api), http_, clock);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("config: [channels.email] ") + e.what());
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
  if (Wants(config.sms.provider, "eskiz",
            !config.sms.eskiz.email.empty() && !config.sms.eskiz.password.empty())) {
    channels::sms::EskizSettings settings = config.sms.eskiz;
    settings.public_url = config.server.public_url;
    settings.callback_url = std::string(core::WithoutTrailingSlashes(config.server.public_url)) +
                            "/v1/sms/eskiz/callback/" + sms_callback_secret;
    providers_[core::ChannelKind::kSms] =
        std::make_unique<channels::sms::EskizChannel>(settings, http_, pool, clock);
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
