#pragma once

// Test fixture: the real Server in-process on 127.0.0.1, port 0, with the
// real hub services on a fresh PostgreSQL database (header-only, test use).

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "core/clock.hpp"
#include "http/http_test_client.hpp"
#include "http/server.hpp"
#include "http/subscriber_token.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_service.hpp"
#include "testing/test_database.hpp"

namespace chopar::http::testing {

inline constexpr const char* kApiKey = "test-api-key";
inline constexpr const char* kInboxSecret = "test-inbox-secret";
inline const std::string kAuth = std::string("Authorization: Bearer ") + kApiKey;

// A valid Web Push key pair of a browser (P-256 point and auth secret).
inline constexpr const char* kP256dh =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
inline constexpr const char* kPushAuth = "BTBZMqHH6r4Tts7J_aSIgg";

// A shared fixture (named, like every one, for what it provides and ending
// in PgTest: it needs the test database); a file's own suites derive from
// it and are named for what they test.
class HttpServerPgTest : public chopar::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    users_ = std::make_unique<hub::UserService>(*pool_, hub::UserService::Options{});
    notify_ = std::make_unique<hub::NotifyService>(*pool_, clock_, metrics_);
    inbox_ = std::make_unique<hub::InboxService>(*pool_);
    StartServer(DefaultSettings());
  }

  void TearDown() override {
    server_.reset();
    client_.reset();
  }

  static Settings DefaultSettings() {
    Settings settings;
    settings.host = "127.0.0.1";
    settings.port = 0;
    settings.api_key = kApiKey;
    settings.inbox_secret = kInboxSecret;
    settings.io_threads = 2;
    settings.handler_threads = 4;
    return settings;
  }

  // Replaces the running server with one using `settings`.
  void StartServer(Settings settings) {
    client_.reset();
    server_.reset();
    server_ = std::make_unique<Server>(std::move(settings),
                                       Dependencies{*pool_, *notify_, *users_, *inbox_, metrics_});
    AddRoutes(server_->router());
    server_->Start();
    client_ = std::make_unique<HttpClient>(server_->port());
  }

  // Routes a test adds to the server's own before it starts (the service
  // registers more than the Server does).
  virtual void AddRoutes(Router& /*router*/) {}

  HttpClient& client() { return *client_; }

  static std::string Token(std::int64_t user_id) {
    // Generation 0 (no user revoked), expiring on 2100-01-01.
    return MakeSubscriberToken(kInboxSecret, user_id, 0, 4'102'444'800);
  }

  // PUT /v1/users/{id}, asserting success.
  void PutUser(std::int64_t id, const nlohmann::json& body) {
    const auto response = client().Put("/v1/users/" + std::to_string(id), body.dump(), {kAuth});
    ASSERT_EQ(response.status, 200) << response.body;
  }

  // POST /v1/notifications for `user_id`; returns the response.
  HttpResult Notify(std::int64_t user_id, nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json body = {{"user_id", user_id},
                           {"type", "task.due"},
                           {"title", "Muddat yaqin"},
                           {"body", "Non olish — 18:00"},
                           {"link", "/tasks/1"}};
    body.update(extra);
    return client().Post("/v1/notifications", body.dump(), {kAuth});
  }

  // Waits (with a generous guard, not a measurement) until `done()`.
  static bool Eventually(const std::function<bool()>& done,
                         std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

  core::SystemClock clock_;
  core::MetricsRegistry metrics_;  // what this test's server counted; its /metrics
  std::unique_ptr<hub::UserService> users_;
  std::unique_ptr<hub::NotifyService> notify_;
  std::unique_ptr<hub::InboxService> inbox_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpClient> client_;
};

// Threads of this process now, from /proc/self/status.
inline int ProcessThreads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

}  // namespace chopar::http::testing
