#include "channels/sms/eskiz_channel.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar::channels::sms {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::FakeHttpServer;
using Request = FakeHttpServer::Request;
using Response = FakeHttpServer::Response;

// The multipart fields of a request, read with a parser of the test's own.
std::map<std::string, std::string> FormOf(const Request& r) {
  std::map<std::string, std::string> fields;
  static const std::regex kPart(R"re(Content-Disposition: form-data; name="([^"]+)"\r\n\r\n([\s\S]*?)\r\n--)re");
  for (auto it = std::sregex_iterator(r.body.begin(), r.body.end(), kPart); it != std::sregex_iterator(); ++it) {
    fields.emplace((*it)[1].str(), (*it)[2].str());
  }
  return fields;
}

// notify.eskiz.uz as the channel uses it. Login hands out "tok-<n>" and
// makes it the only valid token; a send with another token gets 401
// token-invalid; a good send gets {"id": "sms-<n>", "status": "waiting"};
// status_by_id knows the ids it handed out. Each answer can be replaced.
class FakeEskiz {
 public:
  using Hook = std::function<std::optional<Response>(const Request&)>;

  FakeEskiz() : server_([this](const Request& r) { return Handle(r); }) {}

  [[nodiscard]] std::string url() const { return server_.url(); }

  void SetValidToken(std::string token) {
    std::lock_guard lock(mutex_);
    valid_token_ = std::move(token);
  }
  void OnLogin(Hook hook) {
    std::lock_guard lock(mutex_);
    on_login_ = std::move(hook);
  }
  void OnSend(Hook hook) {
    std::lock_guard lock(mutex_);
    on_send_ = std::move(hook);
  }
  void SetStatus(const std::string& id, std::string status) {
    std::lock_guard lock(mutex_);
    statuses_[id] = std::move(status);
  }

  [[nodiscard]] int logins() const {
    std::lock_guard lock(mutex_);
    return logins_;
  }
  // Send requests that carried a valid token (what Eskiz would have sent).
  [[nodiscard]] std::vector<std::map<std::string, std::string>> accepted_sends() const {
    std::lock_guard lock(mutex_);
    return accepted_;
  }
  [[nodiscard]] std::size_t send_requests() const {
    std::lock_guard lock(mutex_);
    return send_requests_;
  }
  [[nodiscard]] std::vector<std::string> status_queries() const {
    std::lock_guard lock(mutex_);
    return status_queries_;
  }
  [[nodiscard]] std::map<std::string, std::string> last_login_form() const {
    std::lock_guard lock(mutex_);
    return last_login_form_;
  }

 private:
  static Response Json(int status, const json& body) { return {status, body.dump(), {}, "application/json"}; }

  Response Handle(const Request& r) {
    if (r.method == "POST" && r.target == "/api/auth/login") {
      Hook hook;
      {
        std::lock_guard lock(mutex_);
        ++logins_;
        last_login_form_ = FormOf(r);
        hook = on_login_;
      }
      if (hook) {
        if (auto answer = hook(r)) return *answer;
      }
      std::lock_guard lock(mutex_);
      valid_token_ = "tok-" + std::to_string(logins_);
      return Json(200, {{"message", "token_generated"}, {"data", {{"token", valid_token_}}}, {"token_type", "bearer"}});
    }
    const auto auth = r.headers.count("authorization") ? r.headers.at("authorization") : "";
    if (r.method == "POST" && r.target == "/api/message/sms/send") {
      Hook hook;
      {
        std::lock_guard lock(mutex_);
        ++send_requests_;
        hook = on_send_;
      }
      if (hook) {
        if (auto answer = hook(r)) return *answer;
      }
      std::lock_guard lock(mutex_);
      if (auth != "Bearer " + valid_token_) return Json(401, {{"status", "token-invalid"}, {"message", "Token is invalid"}});
      accepted_.push_back(FormOf(r));
      const std::string id = "sms-" + std::to_string(accepted_.size());
      statuses_[id] = "waiting";
      return Json(200, {{"id", id}, {"message", "Waiting for SMS provider"}, {"status", "waiting"}});
    }
    const std::string status_prefix = "/api/message/sms/status_by_id/";
    if (r.method == "GET" && r.target.starts_with(status_prefix)) {
      std::lock_guard lock(mutex_);
      const std::string id = r.target.substr(status_prefix.size());
      status_queries_.push_back(id);
      if (auth != "Bearer " + valid_token_) return Json(401, {{"status", "token-invalid"}, {"message", "Token is invalid"}});
      const auto found = statuses_.find(id);
      if (found == statuses_.end()) return Json(404, {{"status", "error"}, {"message", "Not found"}});
      return Json(200, {{"status", "success"}, {"data", {{"id", id}, {"status", found->second}}}});
    }
    return Json(404, {{"message", "no such route"}});
  }

  mutable std::mutex mutex_;
  std::string valid_token_ = "never-valid";
  Hook on_login_;
  Hook on_send_;
  int logins_ = 0;
  std::size_t send_requests_ = 0;
  std::vector<std::map<std::string, std::string>> accepted_;
  std::map<std::string, std::string> statuses_;
  std::vector<std::string> status_queries_;
  std::map<std::string, std::string> last_login_form_;
  FakeHttpServer server_;  // last: stops (joining its threads) before the state above goes
};

class EskizChannelTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (!db_) return;
    db_->Scalar("INSERT INTO users (id, phone, locale) VALUES (7, '+998901234567', 'uz')");
  }

  EskizSettings Settings() const {
    EskizSettings s;
    s.base_url = eskiz_.url();
    s.email = "ops@example.uz";
    s.password = "eskiz-secret";
    s.from = "4546";
    s.callback_url = "https://app.example.uz/v1/sms/eskiz/callback/cb-secret";
    s.public_url = "https://app.example.uz";
    s.timeout = 2s;
    return s;
  }

  // A new notification with its SMS delivery row, as the worker would send it.
  Message NewMessage() {
    const std::string notification = db_->Scalar(
        "INSERT INTO notifications (user_id, type, title, body, link) "
        "VALUES (7, 'task.due', 'Vazifa muddati yaqinlashdi', 'Hisobotni topshiring', '/tasks/42') RETURNING id");
    const std::string delivery = db_->Scalar("INSERT INTO deliveries (notification_id, user_id, channel) VALUES (" +
                                             notification + ", 7, 'sms') RETURNING id");
    Message m;
    m.delivery_id = std::stoll(delivery);
    m.notification_id = std::stoll(notification);
    m.user_id = 7;
    m.channel = core::ChannelKind::kSms;
    m.type = "task.due";
    m.title = "Vazifa muddati yaqinlashdi";
    m.body = "Hisobotni topshiring";
    m.link = "/tasks/42";
    m.locale = "uz";
    m.phone = "+998901234567";
    return m;
  }

  Outcome SendOne(EskizChannel& channel, const Message& m) {
    auto outcomes = channel.Send(std::span<const Message>(&m, 1));
    EXPECT_EQ(outcomes.size(), 1u);
    return outcomes.at(0);
  }

  std::string Column(const Message& m, const std::string& column) {
    return db_->Scalar("SELECT coalesce(" + column + "::text, '<null>') FROM deliveries WHERE id = " +
                       std::to_string(m.delivery_id));
  }
  void StoreToken(const std::string& token) {
    db_->Scalar("INSERT INTO provider_tokens (provider, token, updated_at) VALUES ('eskiz', '" + token +
                "', now()) ON CONFLICT (provider) DO UPDATE SET token = EXCLUDED.token");
  }

  core::SimulatedClock clock_{core::TimePoint{std::chrono::seconds(1748944800)}};
  net::HttpClient http_;
  FakeEskiz eskiz_;
};

TEST_F(EskizChannelTest, SendsDigitsTextSenderAndCallbackAndRecordsEskizId) {
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Message m = NewMessage();
  const Outcome outcome = SendOne(channel, m);
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "sms-1");

  EXPECT_EQ(eskiz_.logins(), 1);
  EXPECT_EQ(eskiz_.last_login_form(), (std::map<std::string, std::string>{{"email", "ops@example.uz"}, {"password", "eskiz-secret"}}));
  const auto sends = eskiz_.accepted_sends();
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_EQ(sends[0].at("mobile_phone"), "998901234567");
  EXPECT_EQ(sends[0].at("from"), "4546");
  EXPECT_EQ(sends[0].at("callback_url"), "https://app.example.uz/v1/sms/eskiz/callback/cb-secret");
  EXPECT_EQ(sends[0].at("message"), "Vazifa muddati yaqinlashdi: Hisobotni topshiring https://app.example.uz/tasks/42");

  // The id is on the delivery at once, and the marker is gone.
  EXPECT_EQ(Column(m, "provider_message_id"), "sms-1");
  EXPECT_EQ(Column(m, "outcome_unknown"), "false");
  // The token is shared through the database.
  EXPECT_EQ(db_->Scalar("SELECT token FROM provider_tokens WHERE provider = 'eskiz'"), "tok-1");
}

TEST_F(EskizChannelTest, UsesTheStoredTokenWithoutLoggingIn) {
  StoreToken("tok-shared");
  eskiz_.SetValidToken("tok-shared");
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  EXPECT_EQ(SendOne(channel, NewMessage()).kind, OutcomeKind::kSent);
  EXPECT_EQ(SendOne(channel, NewMessage()).kind, OutcomeKind::kSent);
  EXPECT_EQ(eskiz_.logins(), 0);
}

// Eight threads send with the same stale token; the fake holds each 401
// until all eight requests have arrived, so they really see it at once.
TEST_F(EskizChannelTest, ConcurrentRejectionsOfOneTokenCauseOneLogin) {
  constexpr int kThreads = 8;
  StoreToken("stale");
  struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    int stale = 0;
  };
  auto gate = std::make_shared<Gate>();
  eskiz_.OnSend([gate](const Request& r) -> std::optional<Response> {
    if (r.headers.at("authorization") != "Bearer stale") return std::nullopt;
    std::unique_lock lock(gate->mutex);
    ++gate->stale;
    gate->cv.notify_all();
    gate->cv.wait_for(lock, 10s, [&] { return gate->stale >= kThreads; });
    return Response{401, R"({"status":"token-invalid","message":"Token is invalid"})", {}, "application/json"};
  });
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  std::vector<Message> messages;
  for (int i = 0; i < kThreads; ++i) messages.push_back(NewMessage());
  std::vector<Outcome> outcomes(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] { outcomes[i] = channel.Send(std::span<const Message>(&messages[i], 1)).at(0); });
    }
  }
  {
    std::lock_guard lock(gate->mutex);
    EXPECT_EQ(gate->stale, kThreads);
  }
  EXPECT_EQ(eskiz_.logins(), 1);
  for (const auto& outcome : outcomes) EXPECT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(eskiz_.accepted_sends().size(), static_cast<std::size_t>(kThreads));
  EXPECT_EQ(db_->Scalar("SELECT token FROM provider_tokens WHERE provider = 'eskiz'"), "tok-1");
}

TEST_F(EskizChannelTest, AnotherWorkersFreshTokenIsAdoptedInsteadOfLoggingIn) {
  StoreToken("old");
  eskiz_.SetValidToken("old");
  EskizChannel first(Settings(), http_, *pool_, clock_);
  EskizChannel second(Settings(), http_, *pool_, clock_);
  ASSERT_EQ(SendOne(second, NewMessage()).kind, OutcomeKind::kSent);  // `second` now holds "old"
  eskiz_.SetValidToken("expired-for-everyone");
  ASSERT_EQ(SendOne(first, NewMessage()).kind, OutcomeKind::kSent);  // 401, login: tok-1
  ASSERT_EQ(SendOne(second, NewMessage()).kind, OutcomeKind::kSent);  // 401, adopts tok-1
  EXPECT_EQ(eskiz_.logins(), 1);
  EXPECT_EQ(first.tokens().logins(), 1);
  EXPECT_EQ(second.tokens().logins(), 0);
}

TEST_F(EskizChannelTest, TooManyRequestsIsRetryAfterEskizDelay) {
  eskiz_.OnSend([](const Request&) -> std::optional<Response> {
    return Response{429, R"({"message":"Too many requests"})", {{"Retry-After", "7"}}, "application/json"};
  });
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Message m = NewMessage();
  const Outcome outcome = SendOne(channel, m);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcome.retry_after, 7s);
  EXPECT_NE(outcome.detail.find("Too many requests"), std::string::npos) << outcome.detail;
  EXPECT_EQ(Column(m, "outcome_unknown"), "false");
}

TEST_F(EskizChannelTest, ServerErrorIsRetryAndTheNextAttemptSends) {
  eskiz_.OnSend([](const Request&) -> std::optional<Response> {
    return Response{503, R"({"message":"Service unavailable"})", {}, "application/json"};
  });
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Message m = NewMessage();
  const Outcome first = SendOne(channel, m);
  EXPECT_EQ(first.kind, OutcomeKind::kRetry);
  EXPECT_FALSE(first.retry_after);
  EXPECT_EQ(Column(m, "outcome_unknown"), "false");

  eskiz_.OnSend({});
  const Outcome second = SendOne(channel, m);
  EXPECT_EQ(second.kind, OutcomeKind::kSent) << second.detail;
  EXPECT_EQ(eskiz_.send_requests(), 2u);
}

TEST_F(EskizChannelTest, OtherClientErrorIsPermanentWithEskizMessage) {
  eskiz_.OnSend([](const Request&) -> std::optional<Response> {
    return Response{400, R"({"status":"error","message":"Invalid phone number"})", {}, "application/json"};
  });
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Outcome outcome = SendOne(channel, NewMessage());
  EXPECT_EQ(outcome.kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcome.detail.find("eskiz HTTP 400: Invalid phone number"), std::string::npos) << outcome.detail;
}

TEST_F(EskizChannelTest, TimeoutAfterTheRequestWasWrittenIsNeverSentAgain) {
  eskiz_.OnSend([](const Request&) -> std::optional<Response> {
    std::this_thread::sleep_for(1500ms);  // the fake's own slowness, longer than the client's timeout
    return std::nullopt;
  });
  EskizSettings settings = Settings();
  settings.timeout = 300ms;
  EskizChannel channel(settings, http_, *pool_, clock_);
  const Message m = NewMessage();
  const Outcome first = SendOne(channel, m);
  EXPECT_EQ(first.kind, OutcomeKind::kUnknown);
  EXPECT_NE(first.detail.find("outcome unknown"), std::string::npos) << first.detail;
  EXPECT_EQ(Column(m, "outcome_unknown"), "true");
  EXPECT_EQ(eskiz_.send_requests(), 1u);

  // Whoever gets this delivery again (a retry by hand, another worker)
  // does not send it a second time.
  eskiz_.OnSend({});
  const Outcome second = SendOne(channel, m);
  EXPECT_EQ(second.kind, OutcomeKind::kUnknown);
  EXPECT_NE(second.detail.find("outcome unknown"), std::string::npos);
  EXPECT_EQ(eskiz_.send_requests(), 1u);
}

TEST_F(EskizChannelTest, NothingWrittenIsAPlainRetry) {
  StoreToken("tok-shared");
  EskizSettings settings = Settings();
  {
    FakeHttpServer closed([](const Request&) { return Response{}; });
    settings.base_url = closed.url();
  }  // nothing listens there any more
  EskizChannel channel(settings, http_, *pool_, clock_);
  const Message m = NewMessage();
  const Outcome outcome = SendOne(channel, m);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry) << outcome.detail;
  EXPECT_EQ(Column(m, "outcome_unknown"), "false");
}

TEST_F(EskizChannelTest, AcceptedButUnrecordedIsReconciledNotSentAgain) {
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Message m = NewMessage();
  ASSERT_EQ(SendOne(channel, m).kind, OutcomeKind::kSent);
  eskiz_.SetStatus("sms-1", "DELIVRD");
  // The worker died before recording "sent"; the delivery comes round again.
  const Outcome again = SendOne(channel, m);
  EXPECT_EQ(again.kind, OutcomeKind::kSent) << again.detail;
  EXPECT_EQ(again.provider_message_id, "sms-1");
  EXPECT_EQ(eskiz_.send_requests(), 1u);
  EXPECT_EQ(eskiz_.status_queries(), std::vector<std::string>{"sms-1"});
  EXPECT_EQ(Column(m, "provider_status"), "DELIVRD");
}

TEST_F(EskizChannelTest, IdUnknownToEskizIsForgottenAndSentAtTheNextAttempt) {
  StoreToken("tok-shared");
  eskiz_.SetValidToken("tok-shared");
  const Message m = NewMessage();
  db_->Scalar("UPDATE deliveries SET provider_message_id = 'lost-id' WHERE id = " + std::to_string(m.delivery_id));
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Outcome first = SendOne(channel, m);
  EXPECT_EQ(first.kind, OutcomeKind::kRetry);
  EXPECT_EQ(eskiz_.send_requests(), 0u);
  EXPECT_EQ(Column(m, "provider_message_id"), "<null>");
  const Outcome second = SendOne(channel, m);
  EXPECT_EQ(second.kind, OutcomeKind::kSent) << second.detail;
  EXPECT_EQ(eskiz_.send_requests(), 1u);
}

TEST_F(EskizChannelTest, DeliveryLeftMarkedByADeadWorkerIsNotSent) {
  const Message m = NewMessage();
  db_->Scalar("UPDATE deliveries SET outcome_unknown = true WHERE id = " + std::to_string(m.delivery_id));
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Outcome outcome = SendOne(channel, m);
  EXPECT_EQ(outcome.kind, OutcomeKind::kUnknown);
  EXPECT_NE(outcome.detail.find("outcome unknown"), std::string::npos);
  EXPECT_EQ(eskiz_.send_requests(), 0u);
}

TEST_F(EskizChannelTest, RefusedLoginIsRetryAndSendsNothing) {
  eskiz_.OnLogin([](const Request&) -> std::optional<Response> {
    return Response{401, R"({"message":"Invalid credentials"})", {}, "application/json"};
  });
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  const Message m = NewMessage();
  const Outcome outcome = SendOne(channel, m);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry);
  EXPECT_NE(outcome.detail.find("login"), std::string::npos) << outcome.detail;
  EXPECT_EQ(eskiz_.send_requests(), 0u);
  EXPECT_EQ(Column(m, "outcome_unknown"), "false");
}

TEST_F(EskizChannelTest, BatchKeepsOrderAndMixesOutcomes) {
  eskiz_.OnSend([](const Request& r) -> std::optional<Response> {
    if (FormOf(r).at("mobile_phone") == "998900000000") {
      return Response{400, R"({"message":"Invalid phone number"})", {}, "application/json"};
    }
    return std::nullopt;
  });
  EskizChannel channel(Settings(), http_, *pool_, clock_);
  std::vector<Message> batch = {NewMessage(), NewMessage(), NewMessage(), NewMessage()};
  batch[1].phone = "+998900000000";
  batch[2].phone.reset();
  const auto outcomes = channel.Send(batch);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[2].detail, "eskiz: no phone number");
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kSent);
  EXPECT_NE(outcomes[0].provider_message_id, outcomes[3].provider_message_id);
  EXPECT_EQ(eskiz_.logins(), 1);
}

}  // namespace
}  // namespace chopar::channels::sms
