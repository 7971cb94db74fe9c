#include <gtest/gtest.h>

#include <cstdlib>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

using core::ChannelKind;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_F(ConfigTest, NothingConfiguredGivesTheDocumentedDefaults) {
  const Config c = LoadConfig(std::nullopt, {});
  EXPECT_EQ(c.database.url, "");
  EXPECT_EQ(c.database.pool_size, 16);
  EXPECT_EQ(c.database.pg_bin_dir, "");
  EXPECT_EQ(c.server.http.host, "127.0.0.1");
  EXPECT_EQ(c.server.http.port, 8080);
  EXPECT_EQ(c.server.http.api_key, "");
  EXPECT_EQ(c.server.http.inbox_secret, "");
  EXPECT_EQ(c.server.http.io_threads, 2);
  EXPECT_EQ(c.server.http.handler_threads, 16);
  EXPECT_EQ(c.server.data_dir, "./var");
  EXPECT_EQ(c.server.public_url, "http://127.0.0.1:8080");
  EXPECT_EQ(c.delivery.batch, 500);
  EXPECT_EQ(c.delivery.lease, seconds(60));
  EXPECT_EQ(c.delivery.max_attempts, 8);
  EXPECT_EQ(c.delivery.backoff.initial, seconds(1));
  EXPECT_EQ(c.delivery.backoff.cap, seconds(3600));
  EXPECT_EQ(c.delivery.concurrency, 2);
  EXPECT_EQ(c.delivery.poll_interval, seconds(1));
  EXPECT_EQ(c.delivery.drain_deadline, seconds(10));
  // The four built-in channels, then the chat channels app_test registers
  // as the chopar binary does (config_keys_test.cpp).
  core::PerChannel<int> hourly(20, 30, 30, 3);
  hourly[*core::ParseChannel("mobile")] = 30;
  hourly[*core::ParseChannel("discord")] = 30;
  hourly[*core::ParseChannel("msteams")] = 30;
  hourly[*core::ParseChannel("slack")] = 30;
  hourly[*core::ParseChannel("whatsapp")] = 10;
  EXPECT_EQ(c.delivery.hourly_limits, hourly);
  EXPECT_EQ(c.server.http.limits.subscriber_per_second, 5);
  EXPECT_EQ(c.server.http.limits.subscriber_burst, 100);
  EXPECT_EQ(c.server.http.limits.address_per_second, 100);
  EXPECT_EQ(c.server.http.limits.address_burst, 1000);
  EXPECT_EQ(c.server.http.limits.api_key_per_second, 0) << "off";
  EXPECT_EQ(c.scheduler.batch, 500);
  EXPECT_EQ(c.scheduler.concurrency, 2);
  EXPECT_EQ(c.scheduler.max_sleep, seconds(60));
  EXPECT_EQ(c.scheduler.busy_retry, milliseconds(500));
  EXPECT_EQ(c.email.provider, "");
  EXPECT_EQ(c.email.smtp.smtp_url, "");
  EXPECT_EQ(c.email.smtp.from, "chopar <noreply@example.com>");
  EXPECT_EQ(c.email.smtp.timeout, seconds(30));
  EXPECT_EQ(c.email.smtp.max_in_flight, 64u);
  EXPECT_EQ(c.email.smtp.starttls, std::nullopt);
  EXPECT_EQ(c.telegram.provider, "");
  EXPECT_EQ(c.telegram.updates, "webhook");
  EXPECT_EQ(c.telegram.bot.bot_token, "");
  EXPECT_EQ(c.telegram.bot.api_base, "https://api.telegram.org");
  EXPECT_EQ(c.telegram.bot.max_per_second, 30);
  EXPECT_EQ(c.push.provider, "");
  EXPECT_EQ(c.push.webpush.subject, "mailto:admin@example.com");
  EXPECT_FALSE(c.push.webpush.allow_http_endpoints);
  EXPECT_EQ(c.push.webpush.max_in_flight, 64);
  EXPECT_EQ(c.sms.provider, "");
  EXPECT_EQ(c.sms.eskiz.base_url, "https://notify.eskiz.uz");
  EXPECT_EQ(c.sms.eskiz.from, "4546");
  EXPECT_EQ(c.sms.callback_secret, "");
}

TEST_F(ConfigTest, TheExampleFileLoadsAndHoldsTheDefaults) {
  const Config example = LoadConfig(std::filesystem::path(CHOPAR_EXAMPLE_CONFIG), {});
  const Config defaults = LoadConfig(std::nullopt, {});
  EXPECT_EQ(example.server.http.host, defaults.server.http.host);
  EXPECT_EQ(example.server.http.port, defaults.server.http.port);
  EXPECT_EQ(example.delivery.lease, defaults.delivery.lease);
  EXPECT_EQ(example.delivery.backoff.initial, defaults.delivery.backoff.initial);
  EXPECT_EQ(example.delivery.backoff.cap, defaults.delivery.backoff.cap);
  EXPECT_EQ(example.delivery.poll_interval, defaults.delivery.poll_interval);
  EXPECT_EQ(example.delivery.drain_deadline, defaults.delivery.drain_deadline);
  EXPECT_EQ(example.delivery.hourly_limits, defaults.delivery.hourly_limits);
  EXPECT_EQ(example.server.http.limits.subscriber_burst, defaults.server.http.limits.subscriber_burst);
  EXPECT_EQ(example.server.http.limits.address_per_second,
            defaults.server.http.limits.address_per_second);
  EXPECT_EQ(example.scheduler.max_sleep, defaults.scheduler.max_sleep);
  EXPECT_EQ(example.telegram.bot.max_per_second, defaults.telegram.bot.max_per_second);
  EXPECT_EQ(example.push.webpush.subject, defaults.push.webpush.subject);
  EXPECT_EQ(example.push.webpush.max_in_flight, defaults.push.webpush.max_in_flight);
}

TEST_F(ConfigTest, PublicUrlDefaultsToTheListenAddress) {
  const auto url = [](const Environment& environment) {
    return LoadConfig(std::nullopt, environment).server.public_url;
  };
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "127.0.0.1:9090"}}), "http://127.0.0.1:9090")
      << "the port of listen, not 8080";
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "10.1.2.3:8081"}}), "http://10.1.2.3:8081");
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "0.0.0.0:8000"}}), "http://127.0.0.1:8000");
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", ":8001"}}), "http://127.0.0.1:8001");
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "[::]:8002"}}), "http://127.0.0.1:8002");
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "[::1]:8003"}}), "http://[::1]:8003");
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "localhost:8004"}}), "http://127.0.0.1:8004");
  EXPECT_EQ(Load("[server]\nlisten = \"127.0.0.1:7000\"\n").server.public_url,
            "http://127.0.0.1:7000");
  EXPECT_EQ(url({{"CHOPAR_SERVER_LISTEN", "127.0.0.1:9090"},
                 {"CHOPAR_SERVER_PUBLIC_URL", "https://chopar.example"}}),
            "https://chopar.example")
      << "a public_url that is set wins";
}

TEST_F(ConfigTest, InlineTablesAndDottedKeysAreTheSameSections) {
  const Config c = Load(R"(
server = { listen = ":9000" }
delivery.batch = 7
limits = { hourly = { sms = 9 } }
)");
  EXPECT_EQ(c.server.http.host, "0.0.0.0");
  EXPECT_EQ(c.server.http.port, 9000);
  EXPECT_EQ(c.delivery.batch, 7);
  EXPECT_EQ(c.delivery.hourly_limits[ChannelKind::kSms], 9);
}

TEST_F(ConfigTest, TheEnvironmentWinsOverTheFile) {
  const Config c = Load(R"(
[delivery]
batch = 100
poll_seconds = 3
[server]
listen = "127.0.0.1:1111"
)",
                        {{"CHOPAR_DELIVERY_BATCH", "200"},
                         {"CHOPAR_SERVER_LISTEN", "127.0.0.1:2222"},
                         {"CHOPAR_CHANNELS_PUSH_ALLOW_HTTP_ENDPOINTS", "false"}});
  EXPECT_EQ(c.delivery.batch, 200);
  EXPECT_EQ(c.server.http.port, 2222);
  EXPECT_EQ(c.delivery.poll_interval, seconds(3))
      << "what the environment does not set stays the file's";
  EXPECT_FALSE(c.push.webpush.allow_http_endpoints);
}

TEST_F(ConfigTest, SecondsBecomeDurationsRoundedToTheMillisecond) {
  const Config c = Load(
      "[delivery]\nbackoff_initial_seconds = 0.0004\nbackoff_max_seconds = 4.35\n"
      "poll_seconds = 0\n");
  EXPECT_EQ(c.delivery.backoff.initial, milliseconds(0));
  EXPECT_EQ(c.delivery.backoff.cap, milliseconds(4350)) << "4.35 * 1000 is 4349.999…";
  EXPECT_EQ(c.delivery.poll_interval, milliseconds(0));
  EXPECT_EQ(Load("[delivery]\nbackoff_max_seconds = 1_000_000_000\n").delivery.backoff.cap,
            seconds(1'000'000'000))
      << "the largest duration accepted";
}

TEST_F(ConfigTest, CHOPAR_TEST_VariablesAndOtherVariablesAreNotTheConfigurations) {
  const Config c =
      LoadConfig(std::nullopt, {{"CHOPAR_TEST_DATABASE_URL", "postgresql:///test"},
                                {"CHOPAR_TEST_PG_BINDIR", "/usr/lib/postgresql/16/bin"},
                                {"CHOPAR_TEST_PG_OPTIONS", "-c fsync=off"},
                                {"CHOPAR_TEST_ANYTHING_ELSE", "x"},
                                {"chopar_delivery_batchsize", "x"},
                                {"CHOPARDELIVERY", "x"},
                                {"HOME", "/root"}});
  EXPECT_EQ(c.database.url, "");
}

TEST_F(ConfigTest, TheFileHasTheWrongType) {
  EXPECT_EQ(FileRefusal("[delivery]\nbatch = \"5\""),
            "config: [delivery] batch has the wrong type (expected an integer)");
  EXPECT_EQ(FileRefusal("[delivery]\nbatch = 5.0"),
            "config: [delivery] batch has the wrong type (expected an integer)");
  EXPECT_EQ(FileRefusal("[delivery]\nbatch = true"),
            "config: [delivery] batch has the wrong type (expected an integer)");
  EXPECT_EQ(FileRefusal("[delivery]\nbatch = [5]"),
            "config: [delivery] batch has the wrong type (expected an integer)");
  EXPECT_EQ(FileRefusal("[delivery.batch]\nsize = 5"),
            "config: [delivery] batch has the wrong type (expected an integer)");
  EXPECT_EQ(FileRefusal("[database]\nurl = 5"),
            "config: [database] url has the wrong type (expected a string)");
  EXPECT_EQ(FileRefusal("[channels.telegram]\nmax_per_second = \"fast\""),
            "config: [channels.telegram] max_per_second has the wrong type (expected a number)");
  EXPECT_EQ(
      FileRefusal("[channels.push]\nallow_http_endpoints = \"yes\""),
      "config: [channels.push] allow_http_endpoints has the wrong type (expected true or false)");
  EXPECT_EQ(
      FileRefusal("[channels.push]\nallow_http_endpoints = 1"),
      "config: [channels.push] allow_http_endpoints has the wrong type (expected true or false)");
  EXPECT_EQ(
      FileRefusal("[delivery]\nlease_seconds = 1.5"),
      "config: [delivery] lease_seconds has the wrong type (expected a whole number of seconds)");
  EXPECT_EQ(FileRefusal("[delivery]\npoll_seconds = \"1s\""),
            "config: [delivery] poll_seconds has the wrong type (expected a number of seconds)");
  EXPECT_EQ(FileRefusal("[delivery]\npoll_seconds = 00:00:01"),
            "config: [delivery] poll_seconds has the wrong type (expected a number of seconds)");
  EXPECT_EQ(FileRefusal("[server]\nlisten = 8080"),
            "config: [server] listen has the wrong type (expected a string host:port)");
}

TEST_F(ConfigTest, TheEnvironmentHasTheWrongType) {
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCH", "five"}}),
            "config: CHOPAR_DELIVERY_BATCH=five is not a valid value for [delivery] batch "
            "(expected an integer)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCH", "5.0"}}),
            "config: CHOPAR_DELIVERY_BATCH=5.0 is not a valid value for [delivery] batch (expected "
            "an integer)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCH", " 5"}}),
            "config: CHOPAR_DELIVERY_BATCH= 5 is not a valid value for [delivery] batch (expected "
            "an integer)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCH", ""}}),
            "config: CHOPAR_DELIVERY_BATCH= is not a valid value for [delivery] batch (expected an "
            "integer)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_TELEGRAM_MAX_PER_SECOND", "fast"}}),
            "config: CHOPAR_CHANNELS_TELEGRAM_MAX_PER_SECOND=fast is not a valid value for "
            "[channels.telegram] max_per_second (expected a number)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_PUSH_ALLOW_HTTP_ENDPOINTS", "yes"}}),
            "config: CHOPAR_CHANNELS_PUSH_ALLOW_HTTP_ENDPOINTS=yes is not a valid value for "
            "[channels.push] allow_http_endpoints (expected true or false)");
  EXPECT_EQ(
      EnvRefusal({{"CHOPAR_DELIVERY_LEASE_SECONDS", "1.5"}}),
      "config: CHOPAR_DELIVERY_LEASE_SECONDS=1.5 is not a valid value for [delivery] lease_seconds "
      "(expected a whole number of seconds)");
  EXPECT_EQ(
      EnvRefusal({{"CHOPAR_DELIVERY_POLL_SECONDS", "1s"}}),
      "config: CHOPAR_DELIVERY_POLL_SECONDS=1s is not a valid value for [delivery] poll_seconds "
      "(expected a number of seconds)");
}

TEST_F(ConfigTest, ValuesOutOfRangeInTheFile) {
  EXPECT_EQ(FileRefusal("[delivery]\nbatch = 3000000000"),
            "config: [delivery] batch = 3000000000 is not valid (out of range)");
  EXPECT_EQ(
      FileRefusal("[delivery]\npoll_seconds = -0.5"),
      "config: [delivery] poll_seconds = -0.5 is not valid (seconds must be from 0 to 1000000000)");
  EXPECT_EQ(
      FileRefusal("[delivery]\nlease_seconds = -1"),
      "config: [delivery] lease_seconds = -1 is not valid (seconds must be from 0 to 1000000000)");
  EXPECT_EQ(FileRefusal("[delivery]\nbackoff_max_seconds = inf"),
            "config: [delivery] backoff_max_seconds = inf is not valid (seconds must be from 0 to "
            "1000000000)");
  EXPECT_EQ(FileRefusal("[delivery]\nbackoff_max_seconds = 1e10"),
            "config: [delivery] backoff_max_seconds = 10000000000.0 is not valid (seconds must be "
            "from 0 to "
            "1000000000)");
  EXPECT_EQ(FileRefusal("[channels.telegram]\nmax_per_second = nan"),
            "config: [channels.telegram] max_per_second = nan is not valid (not a finite number)");
  EXPECT_EQ(FileRefusal("[server]\nlisten = \"nowhere\""),
            "config: [server] listen = 'nowhere' is not valid (listen address must be host:port, "
            "got \"nowhere\")");
  EXPECT_EQ(FileRefusal("[server]\nlisten = \"127.0.0.1:65536\""),
            "config: [server] listen = '127.0.0.1:65536' is not valid (bad port in listen address "
            "\"127.0.0.1:65536\")");
}

TEST_F(ConfigTest, ValuesOutOfRangeInTheEnvironment) {
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCH", "3000000000"}}),
            "config: CHOPAR_DELIVERY_BATCH=3000000000 is not a valid value for [delivery] batch "
            "(out of range)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCH", "99999999999999999999"}}),
            "config: CHOPAR_DELIVERY_BATCH=99999999999999999999 is not a valid value for "
            "[delivery] batch "
            "(out of range)");
  EXPECT_EQ(
      EnvRefusal({{"CHOPAR_DELIVERY_DRAIN_SECONDS", "-1"}}),
      "config: CHOPAR_DELIVERY_DRAIN_SECONDS=-1 is not a valid value for [delivery] drain_seconds "
      "(seconds must be from 0 to 1000000000)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_DRAIN_SECONDS", "1e999"}}),
            "config: CHOPAR_DELIVERY_DRAIN_SECONDS=1e999 is not a valid value for [delivery] "
            "drain_seconds "
            "(seconds must be from 0 to 1000000000)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_TELEGRAM_MAX_PER_SECOND", "inf"}}),
            "config: CHOPAR_CHANNELS_TELEGRAM_MAX_PER_SECOND=inf is not a valid value for "
            "[channels.telegram] max_per_second (not a finite number)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_SERVER_LISTEN", "example.com:80"}}),
            "config: CHOPAR_SERVER_LISTEN=example.com:80 is not a valid value for [server] listen "
            "(listen host must be an IP address, got \"example.com\")");
}

TEST_F(ConfigTest, ValuesThatMakeNoSense) {
  EXPECT_EQ(FileRefusal("[database]\npool_size = 0"),
            "config: [database] pool_size must be positive");
  EXPECT_EQ(FileRefusal("[server]\nio_threads = 0"),
            "config: [server] io_threads must be positive");
  EXPECT_EQ(FileRefusal("[server]\nhandler_threads = -1"),
            "config: [server] handler_threads must be positive");
  EXPECT_EQ(FileRefusal("[delivery]\nbatch = 0"), "config: [delivery] batch must be positive");
  EXPECT_EQ(FileRefusal("[delivery]\nlease_seconds = 0"),
            "config: [delivery] lease_seconds must be positive");
  EXPECT_EQ(FileRefusal("[delivery]\nmax_attempts = 0"),
            "config: [delivery] max_attempts must be positive");
  EXPECT_EQ(FileRefusal("[delivery]\nconcurrency = 0"),
            "config: [delivery] concurrency must be positive");
  EXPECT_EQ(FileRefusal("[scheduler]\nbatch = 0"), "config: [scheduler] batch must be positive");
  EXPECT_EQ(FileRefusal("[scheduler]\nconcurrency = 0"),
            "config: [scheduler] concurrency must be positive");
  EXPECT_EQ(FileRefusal("[scheduler]\nmax_sleep_seconds = 0"),
            "config: [scheduler] max_sleep_seconds must be positive");
  EXPECT_EQ(FileRefusal("[channels.telegram]\nmax_per_second = 0"),
            "config: [channels.telegram] max_per_second must be positive");
  EXPECT_EQ(FileRefusal("[channels.push]\nmax_in_flight = 0"),
            "config: [channels.push] max_in_flight must be from 1 to 1024");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_PUSH_MAX_IN_FLIGHT", "1025"}}),
            "config: [channels.push] max_in_flight must be from 1 to 1024");
  EXPECT_EQ(FileRefusal("[channels.telegram]\nupdates = \"sometimes\""),
            "config: [channels.telegram] updates must be webhook, polling or off");
  EXPECT_EQ(FileRefusal("[channels.email]\nmax_in_flight = 0"),
            "config: [channels.email] max_in_flight must be from 1 to 1024");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_EMAIL_MAX_IN_FLIGHT", "-1"}}),
            "config: CHOPAR_CHANNELS_EMAIL_MAX_IN_FLIGHT=-1 is not a valid value for "
            "[channels.email] max_in_flight (out of range)");
  EXPECT_EQ(FileRefusal("[channels.email]\ntimeout_seconds = 0"),
            "config: [channels.email] timeout_seconds must be positive");
  EXPECT_EQ(FileRefusal("[channels.email]\nstarttls = \"sometimes\""),
            "config: [channels.email] starttls = 'sometimes' is not valid (must be required, "
            "opportunistic or off)");
  EXPECT_EQ(
      FileRefusal("[channels.email]\nprovider = \"smtps\""),
      "config: [channels.email] provider must be smtp, ses, mailgun, postmark, sendgrid or sink");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_SMS_PROVIDER", "vonage"}}),
            "config: [channels.sms] provider must be eskiz, twilio, playmobile or sink");
  EXPECT_EQ(FileRefusal("[channels.push]\nprovider = \"fcm\""),
            "config: [channels.push] provider must be webpush or sink");
  EXPECT_EQ(FileRefusal("[channels.telegram]\nprovider = \"bot\""),
            "config: [channels.telegram] provider must be telegram or sink");
  EXPECT_EQ(FileRefusal("[limits.hourly]\nsms = -1"), "config: [limits.hourly] sms must be >= 0");
  EXPECT_EQ(FileRefusal("[server]\naccept_v1_tokens_until = \"2027-02-30\""),
            "config: [server] accept_v1_tokens_until must be a date YYYY-MM-DD or \"\", not "
            "\"2027-02-30\"");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_LIMITS_HOURLY_PUSH", "-2"}}),
            "config: [limits.hourly] push must be >= 0");
  EXPECT_EQ(FileRefusal("[limits.http]\nsubscriber_per_second = -1"),
            "config: [limits.http] subscriber_per_second must be 0 (no limit) or more");
  EXPECT_EQ(FileRefusal("[limits.http]\nsubscriber_burst = 0.5"),
            "config: [limits.http] subscriber_burst must be at least 1 when "
            "subscriber_per_second is not 0");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_LIMITS_HTTP_API_KEY_PER_SECOND", "10"}}),
            "config: [limits.http] api_key_burst must be at least 1 when api_key_per_second is "
            "not 0");
  EXPECT_EQ(FileRefusal("[limits.http]\naddress_per_second = nan"),
            "config: [limits.http] address_per_second = nan is not valid (not a finite number)");
}

TEST_F(ConfigTest, AFileThatDoesNotParseIsNamedWithTheLine) {
  const std::string message = FileRefusal("[server]\nlisten = \"127.0.0.1:8080\"\napi_key = \n");
  const std::string expected_start = "config: " + (dir_ / "chopar-1.toml").string() + ":3: ";
  EXPECT_EQ(message.substr(0, expected_start.size()), expected_start) << message;
}

// The real process environment, set and restored around one test.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST_F(ConfigTest, TheProcessEnvironmentIsRead) {
  const ScopedVariable batch("CHOPAR_DELIVERY_BATCH", "77");
  const ScopedVariable harness("CHOPAR_TEST_DATABASE_URL", "postgresql:///harness");
  EXPECT_EQ(ProcessEnvironment().at("CHOPAR_DELIVERY_BATCH"), "77");
  EXPECT_EQ(LoadConfig(std::nullopt).delivery.batch, 77);
}

TEST_F(ConfigTest, AnUnknownVariableInTheProcessEnvironmentStopsTheStart) {
  const ScopedVariable typo("CHOPAR_DELIVERY_BATCHSIZE", "5");
  EXPECT_THROW(LoadConfig(std::nullopt), std::runtime_error);
}

}  // namespace
}  // namespace chopar::app
