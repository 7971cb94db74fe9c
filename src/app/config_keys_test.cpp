#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <cctype>
#include <functional>
#include <set>
#include <utility>

#include "app/config_fixture.hpp"
#include "channels/chat/chat_channels.hpp"
#include "channels/mobile/mobile_provider.hpp"

namespace chopar::app {
namespace {

using core::ChannelKind;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The mobile and chat channels, registered as the chopar binary registers
// them (in this order).
const bool kMobileChannel = (channels::mobile::RegisterMobileChannel(), true);
const bool kChatChannels = (channels::chat::RegisterChatChannels(), true);

// One key with a value other than its default: as the environment writes it
// (the file the same, in quotes when `quoted`), and what the configuration
// must then hold.
struct KeyCase {
  std::string section;
  std::string key;
  std::string value;
  bool quoted;
  std::function<void(const Config&)> check;
  std::string file_value = "";  // when the file writes it otherwise (a list)
};

// A string key: it holds exactly what was written.
KeyCase Text(std::string section, std::string key, std::string value,
             std::function<std::string(const Config&)> read) {
  auto check = [read = std::move(read), value](const Config& c) { EXPECT_EQ(read(c), value); };
  return {std::move(section), std::move(key), std::move(value), true, std::move(check)};
}

KeyCase Other(std::string section, std::string key, std::string value,
              std::function<void(const Config&)> check) {
  return {std::move(section), std::move(key), std::move(value), false, std::move(check)};
}

ChannelKind Registered(const char* name) { return core::ParseChannel(name).value(); }

// A key of a registered channel's section, kept as written.
KeyCase RegisteredKey(const std::string& channel, const std::string& key, std::string value) {
  return Text("channels." + channel, key, std::move(value), [channel, key](const Config& c) {
    const auto& section = c.registered_channels.at(channel);
    return key == "provider" ? section.provider : section.values.at(key);
  });
}

const std::vector<KeyCase>& EveryKey() {
  static const std::vector<KeyCase> cases = {
      Text("database", "url", "postgresql://chopar@db/chopar",
           [](const Config& c) { return c.database.url; }),
      Other("database", "pool_size", "4",
            [](const Config& c) { EXPECT_EQ(c.database.pool_size, 4); }),
      Text("database", "pg_bin_dir", "/opt/pg/bin",
           [](const Config& c) { return c.database.pg_bin_dir; }),
      Text("database", "listen_url", "postgresql://chopar@db-direct/chopar",
           [](const Config& c) { return c.database.listen_url; }),
      Text("database", "read_url", "postgresql://chopar@db-replica/chopar",
           [](const Config& c) { return c.database.read_url; }),
      {"database", "read_urls", "postgresql://chopar@standby-a/chopar,host=standby-b", false,
       [](const Config& c) {
         EXPECT_EQ(c.database.read_urls, (std::vector<std::string>{
                                             "postgresql://chopar@standby-a/chopar",
                                             "host=standby-b"}));
       },
       R"(["postgresql://chopar@standby-a/chopar", "host=standby-b"])"},
      Other("database", "read_your_writes_wait_ms", "120",
            [](const Config& c) { EXPECT_EQ(c.database.read_your_writes_wait_ms, 120); }),
      Other("database", "read_max_lag_ms", "5000",
            [](const Config& c) { EXPECT_EQ(c.database.read_max_lag_ms, 5000); }),
      Other("database", "prepared_statements", "false",
            [](const Config& c) { EXPECT_FALSE(c.database.prepared_statements); }),
      Other("database", "connect_timeout_seconds", "3",
            [](const Config& c) { EXPECT_EQ(c.database.session.connect_timeout, seconds(3)); }),
      Other("database", "statement_timeout_seconds", "0",
            [](const Config& c) { EXPECT_EQ(c.database.session.statement_timeout, seconds(0)); }),
      Other("database", "startup_wait_seconds", "0",
            [](const Config& c) { EXPECT_EQ(c.database.startup_wait, seconds(0)); }),
      {"server", "listen", "[::1]:9090", true,
       [](const Config& c) {
         EXPECT_EQ(c.server.http.host, "::1");
         EXPECT_EQ(c.server.http.port, 9090);
       }},
      Text("server", "api_key", "server-key",
           [](const Config& c) { return c.server.http.api_key; }),
      Text("server", "inbox_secret", "inbox-secret",
           [](const Config& c) { return c.server.http.inbox_secret; }),
      Text("server", "accept_v1_tokens_until", "2028-01-31",
           [](const Config& c) { return c.server.http.accept_v1_tokens_until; }),
      Text("server", "data_dir", "/srv/chopar", [](const Config& c) { return c.server.data_dir; }),
      Text("server", "public_url", "https://chopar.example",
           [](const Config& c) { return c.server.public_url; }),
      Other("server", "io_threads", "3",
            [](const Config& c) { EXPECT_EQ(c.server.http.io_threads, 3); }),
      Other("server", "handler_threads", "5",
            [](const Config& c) { EXPECT_EQ(c.server.http.handler_threads, 5); }),
      {"server", "roles", "worker,scheduler", false,
       [](const Config& c) {
         EXPECT_EQ(c.server.roles, (std::vector<std::string>{"worker", "scheduler"}));
       },
       R"(["worker", "scheduler"])"},
      Text("server", "metrics_listen", "127.0.0.1:9100",
           [](const Config& c) { return c.server.metrics_listen; }),
      Other("server", "public_metrics", "true",
            [](const Config& c) { EXPECT_TRUE(c.server.public_metrics); }),
      Other("delivery", "batch", "50", [](const Config& c) { EXPECT_EQ(c.delivery.batch, 50); }),
      Other("delivery", "lease_seconds", "90",
            [](const Config& c) { EXPECT_EQ(c.delivery.lease, seconds(90)); }),
      Other("delivery", "max_attempts", "4",
            [](const Config& c) { EXPECT_EQ(c.delivery.max_attempts, 4); }),
      Other("delivery", "backoff_initial_seconds", "0.25",
            [](const Config& c) { EXPECT_EQ(c.delivery.backoff.initial, milliseconds(250)); }),
      Other("delivery", "backoff_max_seconds", "600",
            [](const Config& c) { EXPECT_EQ(c.delivery.backoff.cap, seconds(600)); }),
      Other("delivery", "concurrency", "3",
            [](const Config& c) { EXPECT_EQ(c.delivery.concurrency, 3); }),
      Other("delivery", "poll_seconds", "2",
            [](const Config& c) { EXPECT_EQ(c.delivery.poll_interval, seconds(2)); }),
      Other("delivery", "linger_seconds", "0.02",
            [](const Config& c) { EXPECT_EQ(c.delivery.linger, milliseconds(20)); }),
      Other("delivery", "drain_seconds", "1.5",
            [](const Config& c) { EXPECT_EQ(c.delivery.drain_deadline, milliseconds(1500)); }),
      Other("scheduler", "batch", "40", [](const Config& c) { EXPECT_EQ(c.scheduler.batch, 40); }),
      Other("scheduler", "concurrency", "1",
            [](const Config& c) { EXPECT_EQ(c.scheduler.concurrency, 1); }),
      Other("scheduler", "max_sleep_seconds", "30.5",
            [](const Config& c) { EXPECT_EQ(c.scheduler.max_sleep, milliseconds(30'500)); }),
      Other("scheduler", "prepare_seconds", "0.5",
            [](const Config& c) { EXPECT_EQ(c.scheduler.prepare, milliseconds(500)); }),
      Other("broadcast", "batch", "300", [](const Config& c) { EXPECT_EQ(c.broadcast.batch, 300); }),
      Other("broadcast", "lease_seconds", "12.5",
            [](const Config& c) { EXPECT_EQ(c.broadcast.lease, milliseconds(12'500)); }),
      Other("broadcast", "deliveries_per_second", "750.5",
            [](const Config& c) { EXPECT_EQ(c.broadcast.deliveries_per_second, 750.5); }),
      Other("broadcast", "max_sleep_seconds", "3",
            [](const Config& c) { EXPECT_EQ(c.broadcast.max_sleep, milliseconds(3'000)); }),
      Text("log", "level", "debug", [](const Config& c) { return c.log.level; }),
      Text("log", "format", "json", [](const Config& c) { return c.log.format; }),
      Other("limits.hourly", "email", "1",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[ChannelKind::kEmail], 1); }),
      Other(
          "limits.hourly", "telegram", "2",
          [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[ChannelKind::kTelegram], 2); }),
      Other("limits.hourly", "push", "0",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[ChannelKind::kPush], 0); }),
      Other("limits.hourly", "sms", "4",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[ChannelKind::kSms], 4); }),
      Other("limits.hourly", "mobile", "3",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[Registered("mobile")], 3); }),
      Other("limits.hourly", "discord", "5",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[Registered("discord")], 5); }),
      Other("limits.hourly", "msteams", "6",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[Registered("msteams")], 6); }),
      Other("limits.hourly", "slack", "8",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[Registered("slack")], 8); }),
      Other("limits.hourly", "whatsapp", "9",
            [](const Config& c) { EXPECT_EQ(c.delivery.hourly_limits[Registered("whatsapp")], 9); }),
      RegisteredKey("mobile", "provider", "mobile"),
      RegisteredKey("mobile", "fcm_service_account", "{}"),
      RegisteredKey("mobile", "fcm_service_account_file", "/run/secrets/firebase.json"),
      RegisteredKey("mobile", "fcm_url", "http://127.0.0.1:9"),
      RegisteredKey("mobile", "apns_key", "-----BEGIN PRIVATE KEY-----"),
      RegisteredKey("mobile", "apns_key_file", "/run/secrets/AuthKey.p8"),
      RegisteredKey("mobile", "apns_key_id", "ABC123DEFG"),
      RegisteredKey("mobile", "apns_team_id", "DEF123GHIJ"),
      RegisteredKey("mobile", "apns_topic", "uz.example.app"),
      RegisteredKey("mobile", "apns_url", "https://api.sandbox.push.apple.com"),
      RegisteredKey("mobile", "apns_ca_file", "/etc/ssl/apns-fake.pem"),
      RegisteredKey("mobile", "time_to_live_seconds", "3600"),
      RegisteredKey("mobile", "timeout_seconds", "12"),
      RegisteredKey("discord", "provider", "discord"),
      RegisteredKey("discord", "allow_local_webhooks", "true"),
      RegisteredKey("discord", "timeout_seconds", "5"),
      RegisteredKey("msteams", "provider", "msteams"),
      RegisteredKey("msteams", "allow_local_webhooks", "true"),
      RegisteredKey("msteams", "timeout_seconds", "7"),
      RegisteredKey("slack", "provider", "slack"),
      RegisteredKey("slack", "allow_local_webhooks", "true"),
      RegisteredKey("slack", "timeout_seconds", "9"),
      RegisteredKey("slack", "client_id", "1234567890.0987654321"),
      RegisteredKey("slack", "client_secret", "slack-secret"),
      RegisteredKey("slack", "client_secret_file", "/run/secrets/slack_client_secret"),
      RegisteredKey("slack", "token_key", "a-token-key-of-32-characters-at-least"),
      RegisteredKey("slack", "token_key_file", "/run/secrets/slack_token_key"),
      RegisteredKey("slack", "scopes", "chat:write"),
      RegisteredKey("slack", "api_url", "http://127.0.0.1:9/api"),
      RegisteredKey("slack", "authorize_url", "http://127.0.0.1:9/oauth/v2/authorize"),
      RegisteredKey("whatsapp", "provider", "cloud_api"),
      RegisteredKey("whatsapp", "api_url", "http://127.0.0.1:9/v21.0"),
      RegisteredKey("whatsapp", "phone_number_id", "106540352242922"),
      RegisteredKey("whatsapp", "access_token", "EAAG-token"),
      RegisteredKey("whatsapp", "access_token_file", "/run/secrets/whatsapp_token"),
      RegisteredKey("whatsapp", "app_secret", "app-secret"),
      RegisteredKey("whatsapp", "app_secret_file", "/run/secrets/meta_app_secret"),
      RegisteredKey("whatsapp", "verify_token", "verify-me"),
      RegisteredKey("whatsapp", "template", "order_update"),
      RegisteredKey("whatsapp", "languages", "en,uz,ru"),
      RegisteredKey("whatsapp", "default_language", "uz"),
      RegisteredKey("whatsapp", "timeout_seconds", "11"),
      Other("limits.http", "subscriber_per_second", "2.5",
            [](const Config& c) { EXPECT_EQ(c.server.http.limits.subscriber_per_second, 2.5); }),
      Other("limits.http", "subscriber_burst", "20",
            [](const Config& c) { EXPECT_EQ(c.server.http.limits.subscriber_burst, 20); }),
      Other("limits.http", "address_per_second", "0",
            [](const Config& c) { EXPECT_EQ(c.server.http.limits.address_per_second, 0); }),
      Other("limits.http", "address_burst", "300",
            [](const Config& c) { EXPECT_EQ(c.server.http.limits.address_burst, 300); }),
      Other("limits.http", "api_key_per_second", "1000",
            [](const Config& c) { EXPECT_EQ(c.server.http.limits.api_key_per_second, 1000); }),
      Other("limits.http", "api_key_burst", "5000",
            [](const Config& c) { EXPECT_EQ(c.server.http.limits.api_key_burst, 5000); }),
      Other("limits.http", "import_body_bytes", "1048576",
            [](const Config& c) { EXPECT_EQ(c.server.http.import_body_limit, 1048576u); }),
      Text("channels.email", "provider", "smtp", [](const Config& c) { return c.email.provider; }),
      Text("channels.email", "smtp_url", "smtps://mail.example:465",
           [](const Config& c) { return c.email.smtp.smtp_url; }),
      Text("channels.email", "from", "Chopar <n@chopar.example>",
           [](const Config& c) { return c.email.smtp.from; }),
      Text("channels.email", "username", "mailer",
           [](const Config& c) { return c.email.smtp.username; }),
      Text("channels.email", "password", "mail-password",
           [](const Config& c) { return c.email.smtp.password; }),
      {"channels.email", "starttls", "opportunistic", true,
       [](const Config& c) {
         EXPECT_EQ(c.email.smtp.starttls, channels::email::StartTls::kOpportunistic);
       }},
      Text("channels.email", "ca_file", "/etc/ca.pem",
           [](const Config& c) { return c.email.smtp.ca_file; }),
      Text("channels.email", "ses_region", "eu-central-1",
           [](const Config& c) { return c.email.ses.region; }),
      Text("channels.email", "ses_access_key_id", "AKIAIOSFODNN7EXAMPLE",
           [](const Config& c) { return c.email.ses.access_key_id; }),
      Text("channels.email", "ses_secret_access_key", "ses-secret",
           [](const Config& c) { return c.email.ses.secret_access_key; }),
      Text("channels.email", "ses_session_token", "ses-token",
           [](const Config& c) { return c.email.ses.session_token; }),
      Text("channels.email", "ses_endpoint", "http://127.0.0.1:9",
           [](const Config& c) { return c.email.ses.endpoint; }),
      Text("channels.email", "mailgun_domain", "mg.acme.uz",
           [](const Config& c) { return c.email.mailgun.domain; }),
      Text("channels.email", "mailgun_api_key", "key-mailgun",
           [](const Config& c) { return c.email.mailgun.api_key; }),
      Text("channels.email", "mailgun_base_url", "https://api.eu.mailgun.net",
           [](const Config& c) { return c.email.mailgun.base_url; }),
      Text("channels.email", "postmark_server_token", "postmark-token",
           [](const Config& c) { return c.email.postmark.server_token; }),
      Text("channels.email", "postmark_message_stream", "broadcasts",
           [](const Config& c) { return c.email.postmark.message_stream; }),
      Text("channels.email", "postmark_base_url", "http://127.0.0.1:9",
           [](const Config& c) { return c.email.postmark.base_url; }),
      Text("channels.email", "sendgrid_api_key", "SG.key",
           [](const Config& c) { return c.email.sendgrid.api_key; }),
      Text("channels.email", "sendgrid_base_url", "http://127.0.0.1:9",
           [](const Config& c) { return c.email.sendgrid.base_url; }),
      Other("channels.email", "timeout_seconds", "12",
            [](const Config& c) { EXPECT_EQ(c.email.smtp.timeout, std::chrono::seconds(12)); }),
      Other("channels.email", "max_in_flight", "8",
            [](const Config& c) { EXPECT_EQ(c.email.smtp.max_in_flight, 8u); }),
      Text("channels.email", "ses_sns_topic_arn", "arn:aws:sns:eu-central-1:1:ses",
           [](const Config& c) { return c.email.receipts.ses_sns_topic_arn; }),
      Text("channels.email", "sendgrid_webhook_public_key", "MFkw",
           [](const Config& c) { return c.email.receipts.sendgrid_webhook_public_key; }),
      Text("channels.email", "mailgun_webhook_signing_key", "mg-signing",
           [](const Config& c) { return c.email.receipts.mailgun_webhook_signing_key; }),
      Text("channels.email", "postmark_webhook_username", "chopar",
           [](const Config& c) { return c.email.receipts.postmark_webhook_username; }),
      Text("channels.email", "postmark_webhook_password", "hook-pass",
           [](const Config& c) { return c.email.receipts.postmark_webhook_password; }),
      Text("channels.telegram", "provider", "telegram",
           [](const Config& c) { return c.telegram.provider; }),
      Text("channels.telegram", "bot_token", "123:abc",
           [](const Config& c) { return c.telegram.bot.bot_token; }),
      Text("channels.telegram", "bot_username", "chopar_bot",
           [](const Config& c) { return c.telegram.bot.bot_username; }),
      Text("channels.telegram", "api_base", "http://127.0.0.1:1",
           [](const Config& c) { return c.telegram.bot.api_base; }),
      Text("channels.telegram", "webhook_secret", "hook-secret",
           [](const Config& c) { return c.telegram.bot.webhook_secret; }),
      Text("channels.telegram", "updates", "polling",
           [](const Config& c) { return c.telegram.updates; }),
      Other("channels.telegram", "max_per_second", "12.5",
            [](const Config& c) { EXPECT_EQ(c.telegram.bot.max_per_second, 12.5); }),
      Other("channels.telegram", "timeout_seconds", "15",
            [](const Config& c) { EXPECT_EQ(c.telegram.bot.timeout, seconds(15)); }),
      Text("channels.push", "provider", "webpush", [](const Config& c) { return c.push.provider; }),
      Text("channels.push", "vapid_public_key", "public",
           [](const Config& c) { return c.push.webpush.vapid_public_key; }),
      Text("channels.push", "vapid_private_key", "private",
           [](const Config& c) { return c.push.webpush.vapid_private_key; }),
      Text("channels.push", "subject", "https://chopar.example",
           [](const Config& c) { return c.push.webpush.subject; }),
      Other("channels.push", "allow_http_endpoints", "true",
            [](const Config& c) { EXPECT_TRUE(c.push.webpush.allow_http_endpoints); }),
      Other("channels.push", "timeout_seconds", "2.5",
            [](const Config& c) { EXPECT_EQ(c.push.webpush.timeout, milliseconds(2500)); }),
      Other("channels.push", "max_in_flight", "8",
            [](const Config& c) { EXPECT_EQ(c.push.webpush.max_in_flight, 8); }),
      Text("channels.sms", "provider", "eskiz", [](const Config& c) { return c.sms.provider; }),
      Text("channels.sms", "base_url", "http://127.0.0.1:2",
           [](const Config& c) { return c.sms.eskiz.base_url; }),
      Text("channels.sms", "email", "sms@chopar.example",
           [](const Config& c) { return c.sms.eskiz.email; }),
      Text("channels.sms", "password", "sms-password",
           [](const Config& c) { return c.sms.eskiz.password; }),
      Text("channels.sms", "from", "CHOPAR", [](const Config& c) { return c.sms.eskiz.from; }),
      Text("channels.sms", "callback_secret", "callback",
           [](const Config& c) { return c.sms.callback_secret; }),
      Text("channels.sms", "twilio_account_sid", "AC0123",
           [](const Config& c) { return c.sms.twilio.account_sid; }),
      Text("channels.sms", "twilio_auth_token", "twilio-token",
           [](const Config& c) { return c.sms.twilio.auth_token; }),
      Text("channels.sms", "twilio_from", "+15005550006",
           [](const Config& c) { return c.sms.twilio.from; }),
      Text("channels.sms", "twilio_messaging_service_sid", "MG0123",
           [](const Config& c) { return c.sms.twilio.messaging_service_sid; }),
      Text("channels.sms", "twilio_base_url", "http://127.0.0.1:3",
           [](const Config& c) { return c.sms.twilio.base_url; }),
      Text("channels.sms", "playmobile_base_url", "http://127.0.0.1:4",
           [](const Config& c) { return c.sms.playmobile.base_url; }),
      Text("channels.sms", "playmobile_login", "acme",
           [](const Config& c) { return c.sms.playmobile.login; }),
      Text("channels.sms", "playmobile_password", "pm-pass",
           [](const Config& c) { return c.sms.playmobile.password; }),
      Text("channels.sms", "playmobile_originator", "ACME",
           [](const Config& c) { return c.sms.playmobile.originator; }),
      Text("relay", "source_url", "postgresql://relay@app/app",
           [](const Config& c) { return c.relay.source_url; }),
      Other("relay", "batch", "200", [](const Config& c) { EXPECT_EQ(c.relay.batch, 200); }),
      Other("relay", "concurrency", "2", [](const Config& c) { EXPECT_EQ(c.relay.concurrency, 2); }),
      Other("relay", "retention_days", "30",
            [](const Config& c) { EXPECT_EQ(c.relay.retention_days, 30); }),
      Other("relay", "listen", "false", [](const Config& c) { EXPECT_FALSE(c.relay.listen); }),
      Other("relay", "poll_seconds", "0.5",
            [](const Config& c) { EXPECT_EQ(c.relay.poll_interval, milliseconds(500)); }),
      Other("relay", "backoff_initial_seconds", "2",
            [](const Config& c) { EXPECT_EQ(c.relay.backoff.initial, seconds(2)); }),
      Other("relay", "backoff_max_seconds", "600",
            [](const Config& c) { EXPECT_EQ(c.relay.backoff.cap, seconds(600)); }),
      {"events", "emit", "delivery.*,notification.read", false,
       [](const Config& c) {
         EXPECT_EQ(c.events.emit, (std::vector<std::string>{"delivery.*", "notification.read"}));
       },
       R"(["delivery.*", "notification.read"])"},
      // Only 0 is accepted (RetentionOfNotificationsIsRefused): read all the same.
      Other("retention", "notifications_days", "0",
            [](const Config& c) { EXPECT_EQ(c.retention.notifications_days, 0); }),
      Other("retention", "deliveries_days", "30",
            [](const Config& c) { EXPECT_EQ(c.retention.deliveries_days, 30); }),
      Other("retention", "audit_days", "365",
            [](const Config& c) { EXPECT_EQ(c.retention.audit_days, 365); }),
  };
  return cases;
}

// The documented rule: CHOPAR_<SECTION>_<KEY>, upper case, dots as underscores.
std::string EnvName(const KeyCase& k) {
  std::string name = "CHOPAR_";
  for (char c : k.section + "_" + k.key)
    name += c == '.' ? '_' : static_cast<char>(std::toupper(c));
  return name;
}

TEST_F(ConfigTest, EveryKeyIsReadFromTheFile) {
  std::string toml, section;
  for (const KeyCase& k : EveryKey()) {
    if (k.section != section) toml += "\n[" + (section = k.section) + "]\n";
    const std::string value = !k.file_value.empty() ? k.file_value
                              : k.quoted            ? "\"" + k.value + "\""
                                                    : k.value;
    toml += k.key + " = " + value + "\n";
  }
  const Config c = Load(toml);
  for (const KeyCase& k : EveryKey()) {
    SCOPED_TRACE("[" + k.section + "] " + k.key);
    k.check(c);
  }
}

TEST_F(ConfigTest, EveryKeyIsReadFromTheEnvironment) {
  Environment environment;
  for (const KeyCase& k : EveryKey()) environment[EnvName(k)] = k.value;
  const Config c = LoadConfig(std::nullopt, environment);
  for (const KeyCase& k : EveryKey()) {
    SCOPED_TRACE(EnvName(k));
    k.check(c);
  }
}

TEST_F(ConfigTest, TheKeysTestedAreTheKeysOfTheExampleFile) {
  std::set<std::pair<std::string, std::string>> tested, example;
  for (const KeyCase& k : EveryKey()) tested.emplace(k.section, k.key);
  std::function<void(const toml::table&, const std::string&)> collect =
      [&](const toml::table& table, const std::string& path) {
        for (auto&& [key, node] : table) {
          if (const toml::table* inner = node.as_table()) {
            collect(*inner,
                    path.empty() ? std::string(key.str()) : path + "." + std::string(key.str()));
          } else {
            example.emplace(path, key.str());
          }
        }
      };
  collect(toml::parse_file(CHOPAR_EXAMPLE_CONFIG), "");
  EXPECT_EQ(tested, example);
}

}  // namespace
}  // namespace chopar::app
