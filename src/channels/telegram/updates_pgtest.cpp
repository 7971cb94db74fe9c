#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>

#include "channels/telegram/poller.hpp"
#include "channels/telegram/texts.hpp"
#include "channels/telegram/updates.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar::channels::telegram {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::FakeHttpServer;

constexpr const char* kBotToken = "123456:TEST-token";
constexpr const char* kSecret = "s3cret-Token_1";
constexpr std::int64_t kChat = 900000001;
constexpr std::int64_t kOtherChat = 900000002;

// The Bot API as the connect flow uses it: sendMessage is recorded and
// answered ok; getUpdates serves the queued updates from the requested
// offset on, forgetting the ones an offset confirmed, as Telegram does.
class FakeBotApi {
 public:
  FakeBotApi() : server_([this](const FakeHttpServer::Request& r) { return Handle(r); }) {}

  [[nodiscard]] std::string url() const { return server_.url(); }

  void QueueUpdate(json update) {
    std::lock_guard lock(mutex_);
    queued_.push_back(std::move(update));
  }
  // Serve every queued update, confirmed or not (a misbehaving or racing API).
  void IgnoreOffset() {
    std::lock_guard lock(mutex_);
    ignore_offset_ = true;
  }
  // Answer getUpdates with this instead (an error, say).
  void AnswerGetUpdatesWith(std::optional<FakeHttpServer::Response> answer) {
    std::lock_guard lock(mutex_);
    get_updates_answer_ = std::move(answer);
  }
  // Runs while a getUpdates request is being answered.
  void OnGetUpdates(std::function<void()> hook) {
    std::lock_guard lock(mutex_);
    on_get_updates_ = std::move(hook);
  }

  [[nodiscard]] std::vector<json> sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }
  [[nodiscard]] std::vector<json> polls() const {
    std::lock_guard lock(mutex_);
    return polls_;
  }
  bool WaitForSent(std::size_t count, std::chrono::seconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return sent_.size() >= count; });
  }

 private:
  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    const json body = json::parse(request.body, nullptr, false);
    std::unique_lock lock(mutex_);
    if (request.target == std::string("/bot") + kBotToken + "/sendMessage") {
      sent_.push_back(body);
      changed_.notify_all();
      return {200, json{{"ok", true}, {"result", {{"message_id", sent_.size()}}}}.dump(), {}};
    }
    if (request.target != std::string("/bot") + kBotToken + "/getUpdates") {
      return {404, R"({"ok":false,"error_code":404,"description":"Not Found"})", {}};
    }
    polls_.push_back(body);
    if (on_get_updates_) {
      auto hook = on_get_updates_;
      lock.unlock();
      hook();
      lock.lock();
    }
    if (get_updates_answer_) return *get_updates_answer_;
    const std::int64_t offset = body.value("offset", std::int64_t{0});
    if (!ignore_offset_) {
      std::erase_if(queued_,
                    [&](const json& u) { return u["update_id"].get<std::int64_t>() < offset; });
    }
    return {200, json{{"ok", true}, {"result", queued_}}.dump(), {}};
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<json> queued_;
  std::vector<json> sent_;
  std::vector<json> polls_;
  bool ignore_offset_ = false;
  std::optional<FakeHttpServer::Response> get_updates_answer_;
  std::function<void()> on_get_updates_;
  FakeHttpServer server_;  // last: its threads use the members above
};

json PrivateChat(std::int64_t chat_id) {
  return {{"id", chat_id}, {"type", "private"}, {"first_name", "Aziz"}};
}

json StartUpdate(std::int64_t update_id, std::int64_t chat_id, const std::string& text,
                 const std::string& language = "en", const std::string& chat_type = "private") {
  json chat = PrivateChat(chat_id);
  chat["type"] = chat_type;
  return {
      {"update_id", update_id},
      {"message",
       {{"message_id", update_id},
        {"date", 1793192700},
        {"chat", chat},
        {"from",
         {{"id", chat_id}, {"is_bot", false}, {"first_name", "Aziz"}, {"language_code", language}}},
        {"text", text},
        {"entities", json::array({{{"offset", 0}, {"length", 6}, {"type", "bot_command"}}})}}}};
}

json MemberUpdate(std::int64_t update_id, std::int64_t chat_id, const std::string& old_status,
                  const std::string& new_status) {
  const json bot = {
      {"id", 123456}, {"is_bot", true}, {"first_name", "chopar"}, {"username", "chopar_test_bot"}};
  return {{"update_id", update_id},
          {"my_chat_member",
           {{"chat", PrivateChat(chat_id)},
            {"from", {{"id", chat_id}, {"is_bot", false}, {"first_name", "Aziz"}}},
            {"date", 1793192700},
            {"old_chat_member", {{"user", bot}, {"status", old_status}}},
            {"new_chat_member", {{"user", bot}, {"status", new_status}, {"until_date", 0}}}}}};
}

class TelegramConnectTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    db_->Scalar("INSERT INTO chopar.users (id, locale) VALUES (1, 'uz'), (2, 'en')");
    Restart();
  }

  TelegramSettings Settings() const {
    TelegramSettings settings;
    settings.bot_token = kBotToken;
    settings.bot_username = "@chopar_test_bot";
    settings.api_base = bot_.url();
    settings.public_url = "https://chopar.example.uz";
    settings.webhook_secret = kSecret;
    settings.long_poll = 0s;
    settings.timeout = 5s;
    return settings;
  }

  // New objects on the same database, as after a process restart.
  void Restart() {
    poller_.reset();
    updates_.reset();
    channel_.reset();
    http_ = std::make_unique<net::HttpClient>();
    channel_ = std::make_unique<TelegramChannel>(Settings(), *http_, clock_);
    updates_ = std::make_unique<TelegramUpdates>(*channel_, *pool_, clock_);
    poller_ = std::make_unique<TelegramPoller>(*updates_, *pool_, *http_, metrics_);
  }

  std::string NewToken(std::int64_t user_id) {
    const std::string url = updates_->CreateLink(user_id).url;
    return url.substr(url.find("?start=") + 7);
  }

  void Webhook(const json& update, const std::string& secret = kSecret) {
    updates_->HandleWebhook(secret, update.dump());
  }

  std::string Connection(std::int64_t user_id) {
    return db_->Scalar(
        "SELECT chat_id || ':' || active FROM chopar.telegram_connections WHERE user_id = " +
        std::to_string(user_id));
  }
  std::int64_t StoredOffset() {
    return db_->Count("SELECT coalesce(max(update_offset), 0) FROM chopar.telegram_poll_state");
  }
  // The next `times` writes of telegram_connections fail with SQLSTATE
  // `code`, raised by a trigger. A sequence counts them: it is not rolled
  // back with the failed statement.
  void FailConnectionWrites(const std::string& code, int times) {
    db_->Scalar("CREATE SEQUENCE public.connection_faults");
    db_->Scalar(
        "CREATE FUNCTION public.connection_fault() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN IF nextval('public.connection_faults') <= " +
        std::to_string(times) + " THEN RAISE EXCEPTION 'injected fault' USING ERRCODE = '" + code +
        "'; END IF; RETURN NEW; END $$");
    db_->Scalar(
        "CREATE TRIGGER connection_fault BEFORE INSERT OR UPDATE ON chopar.telegram_connections "
        "FOR EACH ROW EXECUTE FUNCTION public.connection_fault()");
  }

  core::SimulatedClock clock_{*core::ParseRfc3339("2026-10-28T13:05:00Z")};
  FakeBotApi bot_;  // before the client, so connections close before it goes
  core::MetricsRegistry metrics_;
  std::unique_ptr<net::HttpClient> http_;
  std::unique_ptr<TelegramChannel> channel_;
  std::unique_ptr<TelegramUpdates> updates_;
  std::unique_ptr<TelegramPoller> poller_;
};

TEST_F(TelegramConnectTest, CreateLinkGivesAOneTimeDeepLinkThatExpiresInADay) {
  const TelegramLink link = updates_->CreateLink(1);
  const std::string& url = link.url;
  ASSERT_TRUE(url.starts_with("https://t.me/chopar_test_bot?start=")) << url;
  const std::string token = url.substr(url.find("?start=") + 7);
  EXPECT_EQ(token.size(), 32u);
  EXPECT_EQ(
      token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"),
      std::string::npos);
  EXPECT_EQ(link.expires_at, *core::ParseRfc3339("2026-10-29T13:05:00Z"));
  EXPECT_EQ(
      db_->Scalar("SELECT user_id FROM chopar.telegram_link_tokens WHERE token = '" + token + "'"),
      "1");
  EXPECT_NE(NewToken(1), token) << "every link has its own token";
}

TEST_F(TelegramConnectTest, CreateLinkForAnUnknownUserIsUserNotFound) {
  try {
    (void)updates_->CreateLink(77);
    FAIL() << "expected RequestError";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kUserNotFound);
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.telegram_link_tokens"), 0);
}

TEST_F(TelegramConnectTest, CreateLinkWithoutABotUsernameIsUnavailable) {
  TelegramSettings settings = Settings();
  settings.bot_username.clear();
  TelegramChannel channel(settings, *http_, clock_);
  TelegramUpdates updates(channel, *pool_, clock_);
  try {
    (void)updates.CreateLink(1);
    FAIL() << "expected RequestError";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kUnavailable);
  }
}

TEST_F(TelegramConnectTest, WebhookStartBindsTheChatAndGreetsInTheUsersLocale) {
  const std::string token = NewToken(1);
  EXPECT_NO_THROW(Webhook(StartUpdate(1, kChat, "/start " + token)));

  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");
  const auto sent = bot_.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["chat_id"], kChat);
  EXPECT_EQ(sent[0]["text"], TelegramTextsFor("uz").connected);
  EXPECT_EQ(sent[0]["parse_mode"], "HTML");
}

TEST_F(TelegramConnectTest, WebhookWithAWrongOrMissingSecretIsRefusedAndChangesNothing) {
  const std::string token = NewToken(1);
  for (const std::string secret : {"wrong", "", "s3cret-Token_", "s3cret-Token_1 "}) {
    try {
      Webhook(StartUpdate(1, kChat, "/start " + token), secret);
      FAIL() << "accepted secret '" << secret << "'";
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kUnauthorized);
    }
  }
  EXPECT_EQ(Connection(1), "");
  EXPECT_TRUE(bot_.sent().empty());
  EXPECT_EQ(
      db_->Count("SELECT count(*) FROM chopar.telegram_link_tokens WHERE used_at IS NOT NULL"), 0);
}

TEST_F(TelegramConnectTest, WebhookIsRefusedWhenNoSecretIsConfigured) {
  TelegramSettings settings = Settings();
  settings.webhook_secret.clear();
  TelegramChannel channel(settings, *http_, clock_);
  TelegramUpdates updates(channel, *pool_, clock_);
  EXPECT_THROW(updates.HandleWebhook("", StartUpdate(1, kChat, "/start x").dump()),
               core::RequestError);
}

TEST_F(TelegramConnectTest, WebhookBodyThatIsNotAnUpdateIsInvalidJson) {
  for (const char* body : {"{not json", "[1,2]", ""}) {
    try {
      updates_->HandleWebhook(kSecret, body);
      FAIL() << body;
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidJson);
    }
  }
}

TEST_F(TelegramConnectTest, ReplayedStartChangesNothingAndSendsNoSecondGreeting) {
  const std::string token = NewToken(1);
  const json update = StartUpdate(1, kChat, "/start " + token);
  Webhook(update);
  const std::string used_at = db_->Scalar("SELECT used_at FROM chopar.telegram_link_tokens");
  clock_.Advance(10min);

  EXPECT_NO_THROW(Webhook(update));
  EXPECT_EQ(updates_->HandleUpdate(update).effect, TelegramUpdateEffect::kReplayed);

  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");
  EXPECT_EQ(bot_.sent().size(), 1u);
  EXPECT_EQ(db_->Scalar("SELECT used_at FROM chopar.telegram_link_tokens"), used_at);
}

TEST_F(TelegramConnectTest, ExpiredLinkIsRefusedPolitely) {
  const std::string token = NewToken(1);
  clock_.Advance(24h + 1s);
  const auto result = updates_->HandleUpdate(StartUpdate(1, kChat, "/start " + token));
  EXPECT_EQ(result.effect, TelegramUpdateEffect::kLinkExpired);
  EXPECT_EQ(Connection(1), "");
  const auto sent = bot_.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["text"], TelegramTextsFor("uz").link_expired);
}

TEST_F(TelegramConnectTest, LinkUsedByAnotherChatIsRefusedAndTheFirstChatKeepsIt) {
  const std::string token = NewToken(1);
  Webhook(StartUpdate(1, kChat, "/start " + token));
  EXPECT_EQ(updates_->HandleUpdate(StartUpdate(2, kOtherChat, "/start " + token)).effect,
            TelegramUpdateEffect::kLinkUsed);
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");
  const auto sent = bot_.sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1]["chat_id"], kOtherChat);
  EXPECT_EQ(sent[1]["text"], TelegramTextsFor("uz").link_used);
}

TEST_F(TelegramConnectTest, UnknownTokenAndBareStartGetHelpInTheSendersLanguage) {
  EXPECT_EQ(
      updates_->HandleUpdate(StartUpdate(1, kChat, "/start AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "uz"))
          .effect,
      TelegramUpdateEffect::kLinkInvalid);
  // Other chats: three replies to one chat would wait a second each.
  EXPECT_EQ(
      updates_->HandleUpdate(StartUpdate(2, kOtherChat, "/start '; DROP TABLE x", "en")).effect,
      TelegramUpdateEffect::kLinkInvalid);
  EXPECT_EQ(updates_->HandleUpdate(StartUpdate(3, kOtherChat + 1, "/start", "uz")).effect,
            TelegramUpdateEffect::kHowToConnect);
  const auto sent = bot_.sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0]["text"], TelegramTextsFor("uz").link_invalid);
  EXPECT_EQ(sent[1]["text"], TelegramTextsFor("en").link_invalid);
  EXPECT_EQ(sent[2]["text"], TelegramTextsFor("uz").how_to_connect);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.telegram_connections"), 0);
}

TEST_F(TelegramConnectTest, StartAddressedToTheBotByNameBindsAndOtherTextIsIgnored) {
  const std::string token = NewToken(2);
  EXPECT_EQ(updates_->HandleUpdate(StartUpdate(1, kChat, "hello")).effect,
            TelegramUpdateEffect::kIgnored);
  EXPECT_EQ(updates_->HandleUpdate(StartUpdate(2, kChat, "/start@other_bot " + token)).effect,
            TelegramUpdateEffect::kIgnored);
  EXPECT_EQ(updates_->HandleUpdate(StartUpdate(3, kChat, "/start@Chopar_Test_Bot  " + token + " "))
                .effect,
            TelegramUpdateEffect::kConnected);
  EXPECT_EQ(Connection(2), std::to_string(kChat) + ":true");
  ASSERT_EQ(bot_.sent().size(), 1u);
  EXPECT_EQ(bot_.sent()[0]["text"], TelegramTextsFor("en").connected);
}

TEST_F(TelegramConnectTest, GroupChatIsNeverBound) {
  const std::string token = NewToken(1);
  EXPECT_EQ(
      updates_->HandleUpdate(StartUpdate(1, -100123, "/start " + token, "en", "supergroup")).effect,
      TelegramUpdateEffect::kIgnored);
  EXPECT_EQ(Connection(1), "");
  EXPECT_TRUE(bot_.sent().empty());
}

TEST_F(TelegramConnectTest, NewLinkMovesTheUserToTheNewChat) {
  Webhook(StartUpdate(1, kChat, "/start " + NewToken(1)));
  Webhook(StartUpdate(2, kOtherChat, "/start " + NewToken(1)));
  EXPECT_EQ(Connection(1), std::to_string(kOtherChat) + ":true");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.telegram_connections"), 1);
}

TEST_F(TelegramConnectTest, BlockingAndUnblockingTheBotTogglesActive) {
  Webhook(StartUpdate(1, kChat, "/start " + NewToken(1)));

  const auto kicked = updates_->HandleUpdate(MemberUpdate(2, kChat, "member", "kicked"));
  EXPECT_EQ(kicked.effect, TelegramUpdateEffect::kDeactivated);
  EXPECT_EQ(kicked.user_id, 1);
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":false");

  Webhook(MemberUpdate(3, kChat, "kicked", "member"));
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");

  // A chat nobody connected: nothing to change, nothing fails.
  EXPECT_EQ(updates_->HandleUpdate(MemberUpdate(4, 42, "member", "kicked")).user_id, std::nullopt);
  EXPECT_EQ(bot_.sent().size(), 1u) << "only the greeting";
}

TEST_F(TelegramConnectTest, PollingBindsGreetsAndStoresTheNextOffset) {
  const std::string token = NewToken(1);
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + token));

  const auto result = poller_->RunOnce();

  EXPECT_FALSE(result.failed) << result.error;
  EXPECT_EQ(result.applied, 1u);
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");
  EXPECT_EQ(StoredOffset(), 101);
  ASSERT_EQ(bot_.sent().size(), 1u);
  const auto polls = bot_.polls();
  ASSERT_EQ(polls.size(), 1u);
  EXPECT_FALSE(polls[0].contains("offset")) << "first poll: the earliest unconfirmed update";
  EXPECT_EQ(polls[0]["timeout"], 0);
  EXPECT_EQ(polls[0]["allowed_updates"], json::array({"message", "my_chat_member"}));
}

TEST_F(TelegramConnectTest, RestartedPollerContinuesFromTheStoredOffsetWithoutReplaying) {
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + NewToken(1)));
  (void)poller_->RunOnce();

  Restart();
  bot_.QueueUpdate(MemberUpdate(101, kChat, "member", "kicked"));
  const auto result = poller_->RunOnce();

  EXPECT_EQ(result.applied, 1u);
  EXPECT_EQ(bot_.polls().back()["offset"], 101);
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":false");
  EXPECT_EQ(bot_.sent().size(), 1u) << "the greeting was not sent again";
  EXPECT_EQ(StoredOffset(), 102);
}

TEST_F(TelegramConnectTest, UpdatesBeforeTheStoredOffsetAreNeverAppliedAgain) {
  Webhook(StartUpdate(1, kChat, "/start " + NewToken(1)));
  bot_.QueueUpdate(MemberUpdate(100, kChat, "member", "kicked"));
  (void)poller_->RunOnce();
  Webhook(MemberUpdate(2, kChat, "kicked", "member"));  // unblocked since
  ASSERT_EQ(Connection(1), std::to_string(kChat) + ":true");

  bot_.IgnoreOffset();  // update 100 comes again, with a new one
  bot_.QueueUpdate(MemberUpdate(101, kOtherChat, "member", "kicked"));
  const auto result = poller_->RunOnce();

  EXPECT_EQ(result.received, 2u);
  EXPECT_EQ(result.applied, 1u);
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true") << "update 100 was applied again";
  EXPECT_EQ(StoredOffset(), 102);
}

TEST_F(TelegramConnectTest, BatchAppliedByAnotherPollerMeanwhileIsNotAppliedTwice) {
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + NewToken(1)));
  // Another process polls the same bot and commits offset 101 while our
  // getUpdates is in flight.
  bot_.OnGetUpdates([this] {
    db_->Scalar(
        "INSERT INTO chopar.telegram_poll_state (bot, update_offset) VALUES ('123456', 101) "
        "ON CONFLICT (bot) DO UPDATE SET update_offset = 101");
  });
  const auto result = poller_->RunOnce();
  EXPECT_EQ(result.received, 1u);
  EXPECT_EQ(result.applied, 0u);
  EXPECT_EQ(Connection(1), "");
  EXPECT_TRUE(bot_.sent().empty());
  EXPECT_EQ(StoredOffset(), 101);
}

TEST_F(TelegramConnectTest, FailedGetUpdatesKeepsTheOffsetAndReportsTelegramsWait) {
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + NewToken(1)));
  (void)poller_->RunOnce();

  bot_.AnswerGetUpdatesWith(FakeHttpServer::Response{
      429,
      R"({"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}})",
      {}});
  auto result = poller_->RunOnce();
  EXPECT_TRUE(result.failed);
  EXPECT_EQ(result.retry_after, 3s);
  EXPECT_EQ(StoredOffset(), 101);

  bot_.AnswerGetUpdatesWith(FakeHttpServer::Response{
      409,
      R"({"ok":false,"error_code":409,"description":"Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"})",
      {}});
  result = poller_->RunOnce();
  EXPECT_TRUE(result.failed);
  EXPECT_NE(result.error.find("webhook is active"), std::string::npos) << result.error;
  EXPECT_EQ(StoredOffset(), 101);
}

TEST_F(TelegramConnectTest, StartedPollerAppliesUpdatesUntilStopped) {
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + NewToken(1)));
  poller_->Start();
  ASSERT_TRUE(bot_.WaitForSent(1, 10s)) << "the greeting never came";
  poller_->Stop();
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");
  EXPECT_EQ(StoredOffset(), 101);
  EXPECT_EQ(bot_.sent().size(), 1u);
}

// A transient database error while one update is applied (here a
// serialization failure, then a lock timeout) does not skip it: the batch
// rolls back, no offset is stored, and the update is applied when it comes
// again once the error has cleared.
TEST_F(TelegramConnectTest, ATransientDatabaseErrorNeverSkipsAnUpdate) {
  const std::string token = NewToken(1);
  FailConnectionWrites("40001", 1);
  bot_.QueueUpdate(MemberUpdate(99, kOtherChat, "member", "kicked"));  // changes no row
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + token));

  EXPECT_THROW((void)poller_->RunOnce(), db::SerializationFailure);
  EXPECT_EQ(StoredOffset(), 0) << "the offset moved past an update that was not applied";
  EXPECT_EQ(Connection(1), "");
  EXPECT_TRUE(bot_.sent().empty());

  db_->Scalar("ALTER SEQUENCE public.connection_faults RESTART");
  db_->Scalar(
      "CREATE OR REPLACE FUNCTION public.connection_fault() RETURNS trigger LANGUAGE plpgsql AS $$ "
      "BEGIN IF nextval('public.connection_faults') <= 1 THEN RAISE EXCEPTION 'injected fault' "
      "USING ERRCODE = '55P03'; END IF; RETURN NEW; END $$");
  EXPECT_THROW((void)poller_->RunOnce(), db::LockNotAvailable);
  EXPECT_EQ(StoredOffset(), 0);

  const auto result = poller_->RunOnce();
  EXPECT_EQ(result.received, 2u);
  EXPECT_EQ(result.applied, 2u);
  EXPECT_EQ(Connection(1), std::to_string(kChat) + ":true");
  EXPECT_EQ(StoredOffset(), 101);
  EXPECT_EQ(bot_.sent().size(), 1u) << "one greeting";
}

// An update whose own data makes its statement fail (a data exception,
// class 22) would fail every time: it is skipped, and the updates after it
// are applied.
TEST_F(TelegramConnectTest, AnUpdateThatFailsOnItsOwnDataIsSkipped) {
  const std::string token = NewToken(1);
  FailConnectionWrites("22023", 1);
  bot_.QueueUpdate(StartUpdate(100, kChat, "/start " + NewToken(2)));
  bot_.QueueUpdate(StartUpdate(101, kOtherChat, "/start " + token));

  const auto result = poller_->RunOnce();
  EXPECT_EQ(result.received, 2u);
  EXPECT_EQ(result.applied, 1u);
  EXPECT_EQ(Connection(2), "");
  EXPECT_EQ(Connection(1), std::to_string(kOtherChat) + ":true");
  EXPECT_EQ(StoredOffset(), 102);
}

}  // namespace
}  // namespace chopar::channels::telegram
