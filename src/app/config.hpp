#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/logging.hpp"
#include "app/roles.hpp"
#include "broadcast/settings.hpp"
#include "channels/circuit_breaker.hpp"
#include "channels/email/mailgun.hpp"
#include "channels/email/postmark.hpp"
#include "channels/email/sendgrid.hpp"
#include "channels/email/ses.hpp"
#include "channels/email/settings.hpp"
#include "channels/sms/eskiz_settings.hpp"
#include "channels/sms/playmobile.hpp"
#include "channels/sms/twilio.hpp"
#include "channels/telegram/settings.hpp"
#include "channels/webpush/settings.hpp"
#include "db/session_settings.hpp"
#include "delivery/settings.hpp"
#include "http/settings.hpp"
#include "outbox/settings.hpp"
#include "reports/job.hpp"
#include "retention/settings.hpp"
#include "schedule/settings.hpp"

namespace chopar::app {

// The keys of one email provider: [channels.email] itself, or one entry of
// [[channels.email.providers]] (whose `kind` is `provider`).
struct EmailProvider {
  // "smtp" | "ses" | "mailgun" | "postmark" | "sendgrid" | "sink"; empty:
  // smtp if smtp_url is set, else sink
  std::string provider;
  // smtp_url (empty here: no SMTP server configured), from, username,
  // password, starttls, ca_file, timeout_seconds, max_in_flight (from,
  // timeout_seconds and max_in_flight also for the HTTP APIs).
  channels::email::EmailSettings smtp{.smtp_url = {}};
  // ses_region, ses_access_key_id, ses_secret_access_key,
  // ses_session_token, ses_endpoint.
  channels::email::SesSettings ses;
  // mailgun_domain, mailgun_api_key, mailgun_base_url.
  channels::email::MailgunSettings mailgun;
  // postmark_server_token, postmark_message_stream, postmark_base_url.
  channels::email::PostmarkSettings postmark;
  // sendgrid_api_key, sendgrid_base_url.
  channels::email::SendGridSettings sendgrid;
  // What the receipt webhooks are checked with (docs/api.md "Email
  // receipts"); empty: that provider's webhook answers 503.
  struct Receipts {
    std::string ses_sns_topic_arn;            // the SNS topic SES publishes its events to
    std::string sendgrid_webhook_public_key;  // the Event Webhook's verification key (base64)
    std::string mailgun_webhook_signing_key;  // a secret
    std::string postmark_webhook_username;
    std::string postmark_webhook_password;  // a secret
  } receipts;
};

// The keys of one SMS provider: [channels.sms] itself, or one entry of
// [[channels.sms.providers]] (whose `kind` is `provider`).
struct SmsProvider {
  // "eskiz" | "twilio" | "playmobile" | "sink"; empty: eskiz if
  // email+password set, else sink
  std::string provider;
  channels::sms::EskizSettings eskiz;  // base_url, email, password, from
  // twilio_account_sid, twilio_auth_token, twilio_from,
  // twilio_messaging_service_sid, twilio_base_url.
  channels::sms::TwilioSettings twilio;
  // playmobile_base_url, playmobile_login, playmobile_password,
  // playmobile_originator.
  channels::sms::PlaymobileSettings playmobile;
};

// One entry of a channel's [[channels.<channel>.providers]] list
// (docs/configuration.md, "Several providers per channel").
template <typename Settings>
struct ListedProvider {
  std::string name;                   // unique in the list: [a-z][a-z0-9_]{0,31}; default the kind
  int weight = 0;                     // share of first attempts (0: a standby)
  channels::BreakerSettings breaker;  // failure_threshold, open_seconds
  Settings settings;                  // settings.provider is the entry's `kind`
  std::vector<std::string> keys_set;  // the keys the entry set (the others are inherited)
  // <secret>_file keys: the file holding the secret, read once loaded.
  std::map<std::string, std::string> secret_files;
};

// Every setting of docs/configuration.md, with its default. Sections and keys
// mirror the TOML file; each is also settable as CHOPAR_<SECTION>_<KEY>.
// Where a component has its own settings type, the section IS that type, so
// its defaults are written once, there.
struct Config {
  struct Database {
    std::string url;  // empty: the embedded cluster in server.data_dir
    int pool_size = 16;
    std::string pg_bin_dir;  // embedded cluster: where initdb/pg_ctl live; empty: found
    // A direct connection (not through PgBouncer) for LISTEN and migrations;
    // empty: url.
    std::string listen_url;
    // A second pool for the inbox's read-only queries (a read replica);
    // empty: they use url. Connects like url (prepared_statements applies).
    // The one-element form of read_urls (it goes first when both are set).
    std::string read_url;
    // Hot standbys the inbox's and the console's reads are spread over
    // (db::ReadRouter); empty (with read_url): they use url.
    std::vector<std::string> read_urls;
    // How long a read carrying its caller's write LSN waits for a standby
    // to replay it before it reads from the primary; 0: it does not wait.
    int read_your_writes_wait_ms = 50;
    // A standby whose replay is further behind is not read from.
    int read_max_lag_ms = 1000;
    // false: url goes through a pooler in transaction mode (PgBouncer), see
    // db::ServerPooling.
    bool prepared_statements = true;
    db::SessionSettings session;  // connect_timeout_seconds, statement_timeout_seconds
    // How long a start waits for a server that takes writes (one still
    // starting, or a failover under way) before it gives up; 0: not at all.
    std::chrono::seconds startup_wait{60};
  } database;

  struct Server {
    // listen (as host and port), api_key, inbox_secret, io_threads,
    // handler_threads. An empty api_key or inbox_secret is generated and
    // stored in data_dir when the service starts.
    http::Settings http;
    std::string data_dir = "./var";
    // Empty in the file or environment: http://<listen host>:<listen port>,
    // a wildcard host (0.0.0.0, ::) as 127.0.0.1; filled in by LoadConfig.
    std::string public_url;
    // What this process runs (app/roles.hpp); checked by LoadConfig.
    std::vector<std::string> roles = AllRoleNames();
    // host:port of /metrics and /healthz; empty: none. When set, the API
    // port does not serve /metrics.
    std::string metrics_listen;
    // /metrics on the API port without the API key (when metrics_listen is
    // empty).
    bool public_metrics = false;
  } server;

  delivery::WorkerSettings delivery;      // [delivery] and [limits.hourly]
  schedule::SchedulerSettings scheduler;  // [scheduler]
  LogSettings log;                        // [log]
  broadcast::FanOutSettings broadcast;    // [broadcast]
  outbox::RelaySettings relay;            // [relay] and its [[relay.targets]]
  outbox::EventSettings events;           // [events]
  // [retention]
  retention::RetentionSettings retention;

  // [channels.email]: its provider's keys, or [[channels.email.providers]].
  struct Email : EmailProvider {
    std::vector<ListedProvider<EmailProvider>> providers;
  } email;

  struct Telegram {
    std::string provider;             // "telegram" | "sink"; empty: telegram if bot_token set
    std::string updates = "webhook";  // "webhook" | "polling" | "off"
    // bot_token, bot_username, api_base, webhook_secret, max_per_second.
    channels::telegram::TelegramSettings bot;
  } telegram;

  struct Push {
    std::string provider;  // "webpush" | "sink"; empty: webpush if VAPID keys set
    // vapid_public_key, vapid_private_key, subject, allow_http_endpoints.
    channels::webpush::WebPushSettings webpush;
  } push;

  // [channels.sms]: its provider's keys, or [[channels.sms.providers]].
  struct Sms : SmsProvider {
    std::string callback_secret;  // path secret of delivery reports; empty: generated in data_dir
    std::vector<ListedProvider<SmsProvider>> providers;
  } sms;

  // A channel registered by the binary (core::RegisterChannel), its section
  // not one of the four above: [<settings_section>] with `provider` and the
  // keys its providers registered (channels::RegisterProvider).
  struct RegisteredChannel {
    // A provider registered for the channel, or "sink"; empty: the sink.
    std::string provider;
    // The keys as the file and the environment set them; once loaded with a
    // provider, also each of its other keys with its default
    // (channels::ValuesFor).
    std::map<std::string, std::string> values;
  };
  // By channel name: an entry for each such channel (LoadConfig adds them);
  // a channel without one goes to the sink.
  std::map<std::string, RegisteredChannel> registered_channels;

  // [[reports]]: periodic reports and anomaly alerts, one table per job
  // (file only; no environment variables). Checked by LoadConfig.
  std::vector<reports::ReportJobSettings> reports;
};

// Environment variables by name.
using Environment = std::map<std::string, std::string>;

// The variables of this process (`environ`).
Environment ProcessEnvironment();

// Reads `path` (nullopt: defaults only), then applies the CHOPAR_<SECTION>_<KEY>
// variables of `environment`, which win over the file. Numbers of seconds
// become durations here, once.
//
// Throws std::runtime_error, its message starting "config: " and naming the
// key, when the file does not parse, a value has the wrong type or is out of
// range, or the file or environment names something the configuration does
// not know: an unknown section or key in the file (in a [[relay.targets]]
// entry also a key of another kind of target; in a registered channel's
// section a key its chosen provider does not read), or an unknown CHOPAR_…
// variable (those beginning CHOPAR_TEST_ are reserved for the test harness
// and ignored). The message of an unknown name suggests the closest known one
// when there is one near enough.
Config LoadConfig(const std::optional<std::filesystem::path>& path, const Environment& environment);

// The same for the text of a TOML document instead of a file (errors name
// it "<text>").
Config LoadConfigText(std::string_view toml_text, const Environment& environment);

// LoadConfig(path, ProcessEnvironment()).
Config LoadConfig(const std::optional<std::filesystem::path>& path);

}  // namespace chopar::app
