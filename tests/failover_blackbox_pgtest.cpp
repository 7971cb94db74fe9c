// Black-box, several providers per channel: the built `chopar serve` with
// [[channels.email.providers]] listing two Postmark-speaking fakes on
// 127.0.0.1, "primary" then "secondary". A primary that refuses
// connections or answers 503 hands every message to the secondary, each
// once; a primary that accepts a request and never answers is not failed
// over (the email may be out: the delivery ends "outcome unknown" and the
// secondary never sees it); the primary's circuit opens, half-opens with
// one probe and closes again, as /metrics shows.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "failover-key";
constexpr int kUsers = 12;

enum class Mode { kAccept, kUnavailable, kStall };

class FailoverBlackBox : public testing::DatabaseBlackBox {
 protected:
  // A Postmark-speaking provider in `mode`.
  static FakeHttpServer::Response Postmark(const std::atomic<Mode>& mode,
                                           const FakeHttpServer::Request& request,
                                           const std::string& prefix) {
    FakeHttpServer::Response response;
    switch (mode.load()) {
      case Mode::kUnavailable:
        response.status = 503;
        response.body = R"({"ErrorCode": 0, "Message": "Service unavailable, try again"})";
        return response;
      case Mode::kStall:
        // Taken, and the answer never comes within chopar's timeout.
        response.body = R"({"ErrorCode": 0, "Message": "OK", "MessageID": "late"})";
        response.delay = 10s;
        return response;
      case Mode::kAccept:
        break;
    }
    response.body = json({{"ErrorCode", 0},
                          {"Message", "OK"},
                          {"MessageID", prefix + std::to_string(request.delivery_id.value_or(0))}})
                        .dump();
    return response;
  }

  // `chopar serve` with both providers; the primary at `primary_url`.
  std::unique_ptr<ChildProcess> Serve(const std::string& primary_url, int failure_threshold,
                                      int open_seconds) {
    port_ = FreeLoopbackPort();
    std::ostringstream config;
    config << "[channels.email]\n"
              "from = \"Acme <noreply@acme.example>\"\n"
              "timeout_seconds = 2\n\n"
              "[[channels.email.providers]]\n"
              "kind = \"postmark\"\n"
              "name = \"primary\"\n"
              "postmark_server_token = \"pm-primary\"\n"
              "postmark_base_url = \""
           << primary_url << "\"\n"
           << "failure_threshold = " << failure_threshold << "\n"
           << "open_seconds = " << open_seconds << "\n\n"
           << "[[channels.email.providers]]\n"
              "kind = \"postmark\"\n"
              "name = \"secondary\"\n"
              "postmark_server_token = \"pm-secondary\"\n"
              "postmark_base_url = \""
           << secondary_.url() << "\"\n";
    auto serve = StartWithConfig("serve", port_, DatabaseEnv(kApiKey), config.str(), "serve.log");
    api_ = std::make_unique<Api>(port_, kApiKey);
    EXPECT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
    EXPECT_NE(serve->Output().find("email=primary>secondary"), std::string::npos)
        << serve->Output();
    return serve;
  }

  // One email notification to each of users first..first+count-1; their
  // settled notifications.
  std::vector<json> NotifyAll(int first, int count) {
    std::vector<json> created;
    for (int user = first; user < first + count; ++user) {
      EXPECT_EQ(api_->Call("PUT", "/v1/users/" + std::to_string(user),
                           {{"email", "user" + std::to_string(user) + "@example.uz"}})
                    .status,
                200);
      const auto answer = api_->Call("POST", "/v1/notifications",
                                     {{"user_id", user},
                                      {"type", "task.due"},
                                      {"title", "Hisobot tayyor"},
                                      {"body", "Haftalik hisobot"},
                                      {"channels", {"email"}}});
      EXPECT_EQ(answer.status, 201) << answer.body;
      created.push_back(ParseJsonOrDiscarded(answer.body));
    }
    std::vector<json> settled;
    for (const json& notification : created) {
      settled.push_back(SettledNotification(*api_, notification, 60s));
    }
    return settled;
  }

  // The email delivery of `notification` as GET /v1/deliveries shows it
  // (with its provider fields).
  json EmailDelivery(const json& notification) {
    const json items = ParseJsonOrDiscarded(
        api_->Call("GET", "/v1/deliveries?channel=email&user_id=" + notification["user_id"].dump())
            .body)["items"];
    const std::int64_t id = DeliveryOn(notification, "email")["id"].get<std::int64_t>();
    for (const json& delivery : items) {
      if (delivery["id"] == id) return delivery;
    }
    ADD_FAILURE() << "no delivery " << id << " in " << items.dump();
    return json::object();
  }

  // How many requests each delivery id brought to `server`.
  static std::map<std::int64_t, int> RequestsPerDelivery(const FakeHttpServer& server) {
    std::map<std::int64_t, int> per_delivery;
    for (const auto& request : server.requests()) ++per_delivery[request.delivery_id.value_or(0)];
    return per_delivery;
  }

  std::string Metrics() { return api_->Call("GET", "/metrics").body; }

  // Every delivery of `settled` sent by the secondary, each reaching it
  // once, the primary having been tried first or skipped.
  void ExpectAllSentOnceBySecondary(const std::vector<json>& settled) {
    std::set<std::int64_t> deliveries;
    for (const json& notification : settled) {
      ASSERT_TRUE(DeliveryOn(notification, "email").is_object()) << notification.dump();
      const json delivery = EmailDelivery(notification);
      EXPECT_EQ(delivery["status"], "sent") << delivery.dump();
      EXPECT_EQ(delivery["provider"], "secondary") << delivery.dump();
      EXPECT_EQ(delivery["provider_message_id"], "s-" + delivery["id"].dump());
      deliveries.insert(delivery["id"].get<std::int64_t>());
    }
    const auto per_delivery = RequestsPerDelivery(secondary_);
    for (const std::int64_t id : deliveries) {
      const auto found = per_delivery.find(id);
      EXPECT_EQ(found == per_delivery.end() ? 0 : found->second, 1)
          << "delivery " << id << " reached the secondary that many times";
    }
  }

  std::atomic<Mode> primary_mode_{Mode::kAccept};
  std::atomic<Mode> secondary_mode_{Mode::kAccept};
  FakeHttpServer primary_{
      [this](const FakeHttpServer::Request& r) { return Postmark(primary_mode_, r, "p-"); }};
  FakeHttpServer secondary_{
      [this](const FakeHttpServer::Request& r) { return Postmark(secondary_mode_, r, "s-"); }};
  int port_ = 0;
  std::unique_ptr<Api> api_;
};

TEST_F(FailoverBlackBox, APrimaryRefusingConnectionsHandsEveryMessageToTheSecondaryOnce) {
  // A port nobody listens on: every connection is refused before a byte is written.
  const std::string closed = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  auto serve = Serve(closed, 3, 600);
  const std::vector<json> settled = NotifyAll(1, kUsers);
  ExpectAllSentOnceBySecondary(settled);
  // Three refusals in a row opened the primary's circuit.
  EXPECT_NE(
      Metrics().find(R"(chopar_provider_circuit_state{channel="email",provider="primary"} 1)"),
      std::string::npos)
      << Metrics();
}

TEST_F(FailoverBlackBox, APrimaryAnswering503HandsEveryMessageToTheSecondaryOnce) {
  primary_mode_ = Mode::kUnavailable;
  // A threshold above the count: every message is tried at the primary first.
  auto serve = Serve(primary_.url(), 1000, 600);
  const std::vector<json> settled = NotifyAll(1, kUsers);
  ExpectAllSentOnceBySecondary(settled);
  EXPECT_EQ(RequestsPerDelivery(primary_).size(), static_cast<std::size_t>(kUsers));
  const std::string metrics = Metrics();
  EXPECT_NE(
      metrics.find(
          R"(chopar_provider_sends_total{channel="email",provider="primary",result="retry"} )" +
          std::to_string(kUsers)),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(R"(chopar_provider_circuit_state{channel="email",provider="primary"} 0)"),
            std::string::npos)
      << metrics;
}

TEST_F(FailoverBlackBox, APrimaryThatTakesTheRequestAndNeverAnswersIsNotFailedOver) {
  primary_mode_ = Mode::kStall;
  auto serve = Serve(primary_.url(), 1000, 600);
  const std::vector<json> settled = NotifyAll(1, 3);
  for (const json& notification : settled) {
    const json delivery = EmailDelivery(notification);
    EXPECT_EQ(delivery["status"], "failed") << delivery.dump();
    EXPECT_EQ(delivery["provider"], "primary") << delivery.dump();
    EXPECT_NE(delivery["last_error"].get<std::string>().find("outcome unknown"), std::string::npos)
        << delivery.dump();
  }
  EXPECT_EQ(secondary_.request_count(), 0u);
  for (const auto& [id, requests] : RequestsPerDelivery(primary_)) {
    EXPECT_EQ(requests, 1) << "delivery " << id;
  }
}

TEST_F(FailoverBlackBox, AnOpenCircuitKeepsMessagesAwayFromThePrimary) {
  primary_mode_ = Mode::kUnavailable;
  auto serve = Serve(primary_.url(), 2, 600);
  ExpectAllSentOnceBySecondary(NotifyAll(1, 4));
  EXPECT_NE(
      Metrics().find(R"(chopar_provider_circuit_state{channel="email",provider="primary"} 1)"),
      std::string::npos)
      << Metrics();
  // Sends already under way when it opened may have reached it; none after.
  const std::size_t asked = primary_.request_count();
  EXPECT_GE(asked, 2u);
  ExpectAllSentOnceBySecondary(NotifyAll(5, 4));
  EXPECT_EQ(primary_.request_count(), asked);
}

TEST_F(FailoverBlackBox, AfterItsIntervalAProbeFindsThePrimaryBackAndClosesTheCircuit) {
  primary_mode_ = Mode::kUnavailable;
  auto serve = Serve(primary_.url(), 1, 1);
  ExpectAllSentOnceBySecondary(NotifyAll(1, 2));
  // The primary recovers; after open_seconds a probe finds it and the
  // circuit closes: the next messages are the primary's.
  primary_mode_ = Mode::kAccept;
  int next_user = 100;
  json last;
  ASSERT_TRUE(WaitUntil(
      [&] {
        last = EmailDelivery(NotifyAll(next_user++, 1)[0]);
        return last["provider"] == "primary";
      },
      30s))
      << last.dump();
  EXPECT_EQ(last["provider_message_id"], "p-" + last["id"].dump());
  EXPECT_NE(
      Metrics().find(R"(chopar_provider_circuit_state{channel="email",provider="primary"} 0)"),
      std::string::npos)
      << Metrics();
  const json after = EmailDelivery(NotifyAll(next_user, 1)[0]);
  EXPECT_EQ(after["provider"], "primary") << after.dump();
}

}  // namespace
}  // namespace chopar
