// A channel that only this test binary knows, registered the way a new
// channel is (core::RegisterChannel plus its Channel implementation), sent
// through the real server, notify, templates, preferences, the delivery
// worker and the console's API on a real PostgreSQL, with no other change
// to the code: the proof that the set of channels is open. Its provider is
// registered too (channels::RegisterProvider) and chosen by configuration,
// [channels.pager].
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/channel_providers.hpp"
#include "app/config.hpp"
#include "broadcast/broadcast_service.hpp"
#include "broadcast/fan_out.hpp"
#include "broadcast/topic_service.hpp"
#include "channels/channel.hpp"
#include "channels/provider_registry.hpp"
#include "core/channel_kind.hpp"
#include "db/errors.hpp"
#include "delivery/channel_set.hpp"
#include "delivery/worker.hpp"
#include "http/channel_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/preference_routes.hpp"
#include "http/template_routes.hpp"
#include "templates/template_store.hpp"

namespace chopar {
namespace {

using http::testing::kAuth;

// The registration: a pager, addressed by a pager number kept as the
// user's address of its own, on unless the user says otherwise, with one
// template field of its own.
constexpr core::MessageField kPagerFields[] = {
    {"text", false, 1000, 1000, core::StandsFor::kTitleAndBody}};
const core::ChannelKind kPager =
    core::RegisterChannel({"pager", "pager_number", true, 5, "channels.pager", kPagerFields});

// The channel's implementation: answers every message sent and keeps it.
class PagerChannel final : public channels::Channel {
 public:
  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    std::lock_guard lock(mutex_);
    std::vector<channels::Outcome> outcomes;
    for (const channels::Message& m : messages) {
      sent_.push_back(m);
      outcomes.push_back(channels::Outcome::Sent("page-" + std::to_string(m.delivery_id)));
    }
    return outcomes;
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "pager"; }

  std::vector<channels::Message> sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<channels::Message> sent_;
};

// What the configured pager provider put on the pager network, one
// "<number>: <page>" per message: the network a real provider's requests
// would reach, which the test reads after ChannelProviders took the channel.
class PagerNetwork {
 public:
  static PagerNetwork& Get() {
    static PagerNetwork network;
    return network;
  }
  void Page(const std::string& page) {
    std::lock_guard lock(mutex_);
    pages_.push_back(page);
  }
  std::vector<std::string> pages() const {
    std::lock_guard lock(mutex_);
    return pages_;
  }
  void Clear() {
    std::lock_guard lock(mutex_);
    pages_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> pages_;
};

// The pager's provider as configuration builds it: puts its `prefix` before
// each text and pages it.
class ConfiguredPager final : public channels::Channel {
 public:
  explicit ConfiguredPager(std::string prefix) : prefix_(std::move(prefix)) {}

  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    std::vector<channels::Outcome> outcomes;
    for (const channels::Message& m : messages) {
      PagerNetwork::Get().Page(m.address.value_or("?") + ": " + prefix_ + m.text.value_or(m.title));
      outcomes.push_back(channels::Outcome::Sent("page-" + std::to_string(m.delivery_id)));
    }
    return outcomes;
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "pager"; }

 private:
  std::string prefix_;
};

// The provider's registration: `provider = "pager"` in [channels.pager]
// chooses it, and it reads one key. A prefix of more than 16 bytes does not
// fit the pager's screen: refused as a bad value.
const channels::ProviderRegistration& kPagerProvider = channels::RegisterProvider({
    .channel = "pager",
    .provider = "pager",
    .keys = {{.name = "prefix", .default_value = "", .doc = "put before each page's text"}},
    .factory = [](const channels::ProviderContext& context) -> std::unique_ptr<channels::Channel> {
      const std::string& prefix = context.Value("prefix");
      if (prefix.size() > 16) throw std::invalid_argument("prefix must be at most 16 bytes");
      return std::make_unique<ConfiguredPager>(prefix);
    },
});

// A second provider of the pager, with a key of its own: the section takes
// either one's keys, each only with its own provider.
const channels::ProviderRegistration& kBeeperProvider = channels::RegisterProvider({
    .channel = "pager",
    .provider = "beeper",
    .keys = {{.name = "volume", .default_value = "3", .doc = "how loud the beep is, 1 to 5"}},
    .factory = [](const channels::ProviderContext&) -> std::unique_ptr<channels::Channel> {
      return std::make_unique<ConfiguredPager>("BEEP ");
    },
});

class RegisteredChannelTest : public http::testing::HttpServerPgTest {
 protected:
  void SetUp() override {
    chopar::testing::PgTest::SetUp();
    if (IsSkipped()) return;
    templates_ = std::make_unique<templates::TemplateStore>(*pool_, db_->url());
    templates_->Start();
    users_ = std::make_unique<hub::UserService>(*pool_, hub::UserService::Options{});
    notify_ = std::make_unique<hub::NotifyService>(*pool_, clock_, metrics_, templates_.get());
    inbox_ = std::make_unique<hub::InboxService>(*pool_);
    StartServer(DefaultSettings());
    // Every other channel goes to `elsewhere_`: nothing should.
    worker_ = std::make_unique<delivery::Worker>(
        *pool_, delivery::ChannelSet::AllTo(elsewhere_).With(kPager, pager_), clock_, metrics_,
        delivery::WorkerSettings{}, core::ThreadLocalRandom::Instance(), templates_.get());
  }

  void TearDown() override {
    worker_.reset();
    HttpServerPgTest::TearDown();
    templates_.reset();
  }

  void AddRoutes(http::Router& router) override {
    http::RegisterTemplateRoutes(router, *templates_, *users_);
    http::RegisterPreferenceRoutes(router, *users_, *templates_, http::testing::kInboxSecret);
    http::RegisterChannelRoutes(router);
  }

  nlohmann::json GetJson(const std::string& path, const std::string& header = kAuth) {
    const auto response = client().Get(path, {header});
    EXPECT_EQ(response.status, 200) << path << ": " << response.body;
    return nlohmann::json::parse(response.body);
  }

  std::unique_ptr<templates::TemplateStore> templates_;
  PagerChannel pager_;
  PagerChannel elsewhere_;
  std::unique_ptr<delivery::Worker> worker_;
};

TEST_F(RegisteredChannelTest, IsServedAmongTheChannelsWithItsAddressDefaultAndTemplateFields) {
  const nlohmann::json channels = GetJson("/v1/channels", "Accept: application/json");
  ASSERT_EQ(channels["channels"].size(), 5u) << channels;
  EXPECT_EQ(channels["channels"][4], (nlohmann::json{{"name", "pager"},
                                                     {"address", "pager_number"},
                                                     {"default", true},
                                                     {"template_fields", {"text"}},
                                                     {"settings", "channels.pager"}}));
}

TEST_F(RegisteredChannelTest, ItsAddressIsSetOnTheUserAndBadOnesAreRefusedUnchanged) {
  PutUser(1, {{"addresses", {{"pager", "PGR-0042"}}}});
  nlohmann::json user = GetJson("/v1/users/1");
  EXPECT_EQ(user["addresses"], (nlohmann::json{{"pager", "PGR-0042"}}));
  EXPECT_EQ(user["channels"]["pager"], true);
  EXPECT_EQ(user["channels"]["email"], false);

  for (const nlohmann::json& bad :
       {nlohmann::json{{"addresses", {{"email", "a@example.com"}}}},
        nlohmann::json{{"addresses", {{"fax", "1"}}}},
        nlohmann::json{{"addresses", {{"pager", ""}}}},
        nlohmann::json{{"addresses", {{"pager", "line\nbreak"}}}},
        nlohmann::json{{"addresses", {{"pager", 42}}}}, nlohmann::json{{"addresses", "PGR-1"}}}) {
    const auto response = client().Put("/v1/users/1", bad.dump(), {kAuth});
    EXPECT_EQ(response.status, 400) << bad << " → " << response.body;
  }
  EXPECT_EQ(GetJson("/v1/users/1")["addresses"], (nlohmann::json{{"pager", "PGR-0042"}}));

  PutUser(1, {{"addresses", {{"pager", nullptr}}}});
  user = GetJson("/v1/users/1");
  EXPECT_EQ(user["addresses"], nlohmann::json::object());
  EXPECT_EQ(user["channels"]["pager"], false);
}

TEST_F(RegisteredChannelTest, ANotificationIsRenderedByItsTemplateFieldAndSentThroughItsChannel) {
  PutUser(1, {{"addresses", {{"pager", "PGR-0042"}}}});
  const auto put = client().Put("/v1/templates/shift.start", R"({"default_locale": "en",
      "locales": {"en": {"title": "Shift {{shift}} starts",
                         "pager": {"text": "SHIFT {{shift}} NOW"}}}})",
                                {kAuth});
  ASSERT_EQ(put.status, 200) << put.body;
  const auto refused = client().Put("/v1/templates/shift.end",
                                    R"({"default_locale": "en",
          "locales": {"en": {"title": "t", "pager": {"html": "<b>no</b>"}}}})",
                                    {kAuth});
  EXPECT_EQ(refused.status, 400) << "pager has no html field: " << refused.body;

  const auto notified =
      client().Post("/v1/notifications",
                    R"({"user_id": 1, "type": "shift.start", "data": {"shift": "B"}})", {kAuth});
  ASSERT_EQ(notified.status, 201) << notified.body;
  EXPECT_EQ(nlohmann::json::parse(notified.body)["channels"], nlohmann::json({"pager"}))
      << notified.body;

  EXPECT_EQ(worker_->RunOnce().sent, 1);
  const std::vector<channels::Message> sent = pager_.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].channel, kPager);
  EXPECT_EQ(sent[0].address, "PGR-0042");
  EXPECT_EQ(sent[0].text, "SHIFT B NOW");
  EXPECT_EQ(sent[0].title, "Shift B starts");
  EXPECT_TRUE(elsewhere_.sent().empty());

  // The console's delivery list, filtered by the channel's name.
  const nlohmann::json deliveries = GetJson("/v1/deliveries?channel=pager&user_id=1");
  ASSERT_EQ(deliveries["items"].size(), 1u) << deliveries;
  EXPECT_EQ(deliveries["items"][0]["channel"], "pager");
  EXPECT_EQ(deliveries["items"][0]["status"], "sent");
}

TEST_F(RegisteredChannelTest, TheUsersPreferenceTurnsItOffAsTheBellsSettingsDo) {
  PutUser(1, {{"addresses", {{"pager", "PGR-0042"}}}});
  const std::string bell = "Authorization: Bearer " + Token(1);
  EXPECT_FALSE(GetJson("/v1/inbox/preferences", bell).contains("pager"));

  const auto off = client().Put("/v1/inbox/preferences", R"({"pager": false})", {bell});
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_EQ(GetJson("/v1/inbox/preferences", bell)["pager"], false);
  const auto unknown = client().Put("/v1/inbox/preferences", R"({"fax": false})", {bell});
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  EXPECT_NE(unknown.body.find("pager"), std::string::npos)
      << "the error lists the registered channels: " << unknown.body;

  const auto notified = Notify(1);
  ASSERT_EQ(notified.status, 201) << notified.body;
  EXPECT_EQ(nlohmann::json::parse(notified.body)["channels"], nlohmann::json::array());
  worker_->RunOnce();
  EXPECT_TRUE(pager_.sent().empty());

  // Critical ignores the preference, as for every channel.
  ASSERT_EQ(Notify(1, {{"critical", true}}).status, 201);
  EXPECT_EQ(worker_->RunOnce().sent, 1);
  EXPECT_EQ(pager_.sent().size(), 1u);
}

TEST_F(RegisteredChannelTest, TheDatabaseAcceptsTheRegisteredKindsAndNoOther) {
  PutUser(1, nlohmann::json::object());
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.channel_kinds WHERE name = 'pager'"), 1);
  EXPECT_EQ(db_->Scalar("SELECT chopar.known_channel('pager')"), "t");
  EXPECT_EQ(db_->Scalar("SELECT chopar.known_channel('fax')"), "f");
  auto conn = db_->Connect();
  EXPECT_THROW(conn.ExecText("INSERT INTO chopar.user_addresses (user_id, channel, address) "
                             "VALUES (1, 'fax', '1')",
                             {}),
               db::DbError);
  conn.ExecText(
      "INSERT INTO chopar.user_addresses (user_id, channel, address) VALUES (1, 'pager', '1')", {});
}

// A broadcast without a template takes the set-based fan-out
// (broadcast/queries/fan_out_batch.sql), which chooses channels in SQL:
// the pager reaches the subscribers with a pager number, by its default,
// and not the one who turned it off.
TEST_F(RegisteredChannelTest, ABroadcastReachesItsSubscribersOnIt) {
  PutUser(1, {{"addresses", {{"pager", "PGR-1"}}}});
  PutUser(2, {{"addresses", {{"pager", "PGR-2"}}}, {"preferences", {{"pager", false}}}});
  PutUser(3, nlohmann::json::object());
  broadcast::TopicService topics(*pool_);
  topics.Put("night-shift", "Night shift");
  ASSERT_EQ(topics.AddSubscribers("night-shift", {1, 2, 3}), 3);
  broadcast::BroadcastService broadcasts(*pool_, templates_.get());
  const auto created = broadcasts.Create(broadcast::ParseBroadcastRequest(
      {{"topic", "night-shift"},
       {"notification", {{"type", "shift.start"}, {"title", "Shift C"}, {"body", "22:00"}}}}));
  ASSERT_TRUE(created.created);
  // No template lookup: the set-based path.
  broadcast::FanOut fan_out(*pool_, clock_, metrics_, broadcast::FanOutSettings{});
  EXPECT_GE(fan_out.RunOnce(), 1);
  EXPECT_EQ(broadcasts.Get(created.broadcast.id).created, 3) << "every subscriber's inbox";

  while (worker_->RunOnce().claimed > 0) {
  }
  const std::vector<channels::Message> sent = pager_.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].user_id, 1);
  EXPECT_EQ(sent[0].address, "PGR-1");
  EXPECT_EQ(sent[0].title, "Shift C");
  EXPECT_TRUE(elsewhere_.sent().empty());
}

// The provider chosen by [channels.pager] and built by app::ChannelProviders
// from a configuration's text: a notification reaches it through the worker.
TEST_F(RegisteredChannelTest, ItsConfiguredProviderIsBuiltByTheFactoryAndSendsANotification) {
  PagerNetwork::Get().Clear();
  const app::Config config = app::LoadConfigText(R"([channels.pager]
provider = "pager"
prefix = "[chopar] "
)",
                                                 {});
  app::ChannelProviders providers(config, *pool_, clock_, "sms-callback-secret",
                                  http::testing::kInboxSecret);
  EXPECT_EQ(providers.Describe(), "email=sink telegram=sink push=sink sms=sink pager=pager");
  worker_.reset();  // this test's worker is the configured set's
  delivery::Worker worker(*pool_, providers.set(), clock_, metrics_, delivery::WorkerSettings{},
                          core::ThreadLocalRandom::Instance(), templates_.get());

  PutUser(1, {{"addresses", {{"pager", "PGR-0042"}}}});
  const auto put = client().Put("/v1/templates/shift.start", R"({"default_locale": "en",
      "locales": {"en": {"title": "Shift {{shift}} starts",
                         "pager": {"text": "SHIFT {{shift}} NOW"}}}})",
                                {kAuth});
  ASSERT_EQ(put.status, 200) << put.body;
  const auto notified =
      client().Post("/v1/notifications",
                    R"({"user_id": 1, "type": "shift.start", "data": {"shift": "B"}})", {kAuth});
  ASSERT_EQ(notified.status, 201) << notified.body;

  EXPECT_EQ(worker.RunOnce().sent, 1);
  EXPECT_EQ(PagerNetwork::Get().pages(),
            std::vector<std::string>{"PGR-0042: [chopar] SHIFT B NOW"});
  EXPECT_TRUE(pager_.sent().empty()) << "the test's own pager is not in the configured set";
  const nlohmann::json deliveries = GetJson("/v1/deliveries?channel=pager&user_id=1");
  ASSERT_EQ(deliveries["items"].size(), 1u) << deliveries;
  EXPECT_EQ(deliveries["items"][0]["status"], "sent");
}

// A factory's std::invalid_argument stops the start as any provider's bad
// configuration does, naming the section.
TEST_F(RegisteredChannelTest, AFactorysRefusalIsAConfigErrorNamingTheSection) {
  const app::Config config = app::LoadConfigText(
      "[channels.pager]\nprovider = \"pager\"\nprefix = \"0123456789abcdefX\"\n", {});
  try {
    app::ChannelProviders providers(config, *pool_, clock_, "sms-callback-secret",
                                    http::testing::kInboxSecret);
    ADD_FAILURE() << "built: " << providers.Describe();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "config: [channels.pager] prefix must be at most 16 bytes");
  }
}

// ---- The registration and the configuration, no database -------------------

// The message LoadConfigText throws, or "(loaded)".
std::string Refusal(const std::string& toml, const app::Environment& environment = {}) {
  try {
    (void)app::LoadConfigText(toml, environment);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(RegisteredProviderConfig, TheSectionChoosesTheProviderAndGivesItsKeysWithDefaults) {
  const app::Config set =
      app::LoadConfigText("[channels.pager]\nprovider = \"pager\"\nprefix = \"NOC: \"\n", {});
  ASSERT_EQ(set.registered_channels.count("pager"), 1u);
  EXPECT_EQ(set.registered_channels.at("pager").provider, "pager");
  EXPECT_EQ(set.registered_channels.at("pager").values,
            (std::map<std::string, std::string>{{"prefix", "NOC: "}}));

  const app::Config defaults = app::LoadConfigText("[channels.pager]\nprovider = \"pager\"\n", {});
  EXPECT_EQ(defaults.registered_channels.at("pager").values,
            (std::map<std::string, std::string>{{"prefix", ""}}))
      << "the registered default";
}

TEST(RegisteredProviderConfig, TheEnvironmentSetsItsKeysAsAnyOther) {
  const app::Config config = app::LoadConfigText(
      "", {{"CHOPAR_CHANNELS_PAGER_PROVIDER", "pager"}, {"CHOPAR_CHANNELS_PAGER_PREFIX", "ENV: "}});
  EXPECT_EQ(config.registered_channels.at("pager").provider, "pager");
  EXPECT_EQ(config.registered_channels.at("pager").values.at("prefix"), "ENV: ");
  EXPECT_EQ(Refusal("", {{"CHOPAR_CHANNELS_PAGER_PREFX", "x"}}),
            "config: unknown environment variable CHOPAR_CHANNELS_PAGER_PREFX (did you mean "
            "CHOPAR_CHANNELS_PAGER_PREFIX?)");
}

TEST(RegisteredProviderConfig, AnUnknownKeyInItsSectionIsRefused) {
  EXPECT_EQ(Refusal("[channels.pager]\nprovider = \"pager\"\nprefx = \"NOC: \"\n"),
            "config: unknown key [channels.pager] prefx (did you mean prefix?)");
  // A boolean or an integer is taken as its text; any other TOML type is not.
  EXPECT_EQ(Refusal("[channels.pager]\nprefix = 5.5\n"),
            "config: [channels.pager] prefix has the wrong type (expected a string, a boolean or "
            "an integer)");
  EXPECT_EQ(Refusal("[channels.pager]\nprefix = [\"a\"]\n"),
            "config: [channels.pager] prefix has the wrong type (expected a string, a boolean or "
            "an integer)");
  EXPECT_EQ(Refusal("[channels.pagr]\nprovider = \"pager\"\n"),
            "config: unknown section [channels.pagr] (did you mean [channels.pager]?)");
}

TEST(RegisteredProviderConfig, ABooleanOrAnIntegerIsTakenAsItsText) {
  const app::Config config =
      app::LoadConfigText("[channels.pager]\nprovider = \"beeper\"\nvolume = 5\n", {});
  EXPECT_EQ(config.registered_channels.at("pager").values.at("volume"), "5");
  const app::Config flag =
      app::LoadConfigText("[channels.pager]\nprovider = \"pager\"\nprefix = true\n", {});
  EXPECT_EQ(flag.registered_channels.at("pager").values.at("prefix"), "true");
}

TEST(RegisteredProviderConfig, AKeyOfAnotherProviderIsRefused) {
  EXPECT_EQ(Refusal("[channels.pager]\nprovider = \"pager\"\nvolume = \"5\"\n"),
            "config: [channels.pager] key volume does not apply to provider pager (its keys: "
            "prefix)");
  const app::Config beeper = app::LoadConfigText("[channels.pager]\nprovider = \"beeper\"\n", {});
  EXPECT_EQ(beeper.registered_channels.at("pager").values,
            (std::map<std::string, std::string>{{"volume", "3"}}));
}

TEST(RegisteredProviderConfig, AProviderNotRegisteredIsRefusedWithTheChoices) {
  EXPECT_EQ(Refusal("[channels.pager]\nprovider = \"fax\"\n"),
            "config: [channels.pager] provider must be pager, beeper or sink");
  EXPECT_EQ(Refusal("", {{"CHOPAR_CHANNELS_PAGER_PROVIDER", "fax"}}),
            "config: [channels.pager] provider must be pager, beeper or sink");
}

TEST(RegisteredProviderConfig, NoSectionOrTheSinkLeavesItToTheSink) {
  for (const std::string& toml :
       {std::string(), std::string("[channels.pager]\nprovider = \"sink\"\nprefix = \"x\"\n"),
        std::string("[channels.pager]\n")}) {
    SCOPED_TRACE(toml);
    const app::Config config = app::LoadConfigText(toml, {});
    ASSERT_EQ(config.registered_channels.count("pager"), 1u);
    const std::string& provider = config.registered_channels.at("pager").provider;
    EXPECT_TRUE(provider.empty() || provider == "sink") << provider;
  }
}

TEST(RegisteredProviderRegistry, RefusesAnUnknownOrBuiltInChannelAndADuplicate) {
  const auto factory = [](const channels::ProviderContext&) -> std::unique_ptr<channels::Channel> {
    return std::make_unique<ConfiguredPager>("");
  };
  const auto refusal = [&](channels::ProviderRegistration registration) -> std::string {
    try {
      channels::RegisterProvider(std::move(registration));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(registered)";
  };
  EXPECT_EQ(refusal({.channel = "fax", .provider = "fax", .keys = {}, .factory = factory}),
            "provider 'fax' of channel 'fax': no channel 'fax' is registered (email, telegram, "
            "push, sms or pager)");
  EXPECT_EQ(refusal({.channel = "email", .provider = "mailgun", .keys = {}, .factory = factory}),
            "provider 'mailgun' of channel 'email': email's providers are built in, read from "
            "[channels.email]");
  EXPECT_EQ(refusal({.channel = "pager", .provider = "beeper", .keys = {}, .factory = factory}),
            "provider 'beeper' of channel 'pager' is registered already");
  EXPECT_EQ(refusal({.channel = "pager", .provider = "sink", .keys = {}, .factory = factory}),
            "provider 'sink' of channel 'pager': the name must be 1 to 32 lowercase letters, "
            "digits or '_', starting with a letter, and not sink");
  EXPECT_EQ(refusal({.channel = "pager",
                     .provider = "buzzer",
                     .keys = {{.name = "provider", .default_value = "", .doc = ""}},
                     .factory = factory}),
            "provider 'buzzer' of channel 'pager': key 'provider' must be 1 to 32 lowercase "
            "letters, digits or '_', starting with a letter, and not provider");
  EXPECT_EQ(refusal({.channel = "pager", .provider = "buzzer", .keys = {}, .factory = nullptr}),
            "provider 'buzzer' of channel 'pager': no factory");
  EXPECT_EQ(refusal({.channel = "pager",
                     .provider = "buzzer",
                     .keys = {{.name = "tone", .default_value = "", .doc = ""},
                              {.name = "tone", .default_value = "", .doc = ""}},
                     .factory = factory}),
            "provider 'buzzer' of channel 'pager': key 'tone' is listed twice");
  EXPECT_EQ(channels::ProvidersOf(kPager),
            (std::vector<const channels::ProviderRegistration*>{&kPagerProvider, &kBeeperProvider}))
      << "nothing refused was kept";
}

}  // namespace
}  // namespace chopar
