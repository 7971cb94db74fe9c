// Black-box, email receipts end to end: the built `chopar serve` sending
// through a fake Postmark on 127.0.0.1 and taking Postmark's bounce
// webhook. A hard bounce suppresses the address: the user's next email is
// skipped with "suppressed: …" and never reaches Postmark; deleting the
// suppression sends the one after it. A spam complaint turns email off for
// the notification's category: the next notification of that category has
// no email, one of another category still does.

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "blackbox_support.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "receipts-key";

class EmailReceiptsBlackBox : public testing::DatabaseBlackBox {
 protected:
  void SetUp() override {
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    const int port = FreeLoopbackPort();
    serve_ = Start(
        "serve", port,
        DatabaseEnv(kApiKey, {{"CHOPAR_CHANNELS_EMAIL_PROVIDER", "postmark"},
                              {"CHOPAR_CHANNELS_EMAIL_FROM", "Acme <noreply@acme.example>"},
                              {"CHOPAR_CHANNELS_EMAIL_POSTMARK_SERVER_TOKEN", "pm-token"},
                              {"CHOPAR_CHANNELS_EMAIL_POSTMARK_BASE_URL", postmark_.url()},
                              {"CHOPAR_CHANNELS_EMAIL_POSTMARK_WEBHOOK_USERNAME", "chopar"},
                              {"CHOPAR_CHANNELS_EMAIL_POSTMARK_WEBHOOK_PASSWORD", "hook-pass"}}),
        "serve.log");
    api_ = std::make_unique<Api>(port, kApiKey);
    ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve_->Output();
  }

  // An email notification to `user` in `category`, settled; its email
  // delivery as GET /v1/deliveries shows it (null when it has none).
  json Notify(int user, const std::string& category) {
    const auto created = api_->Call("POST", "/v1/notifications",
                                    {{"user_id", user},
                                     {"type", "task.due"},
                                     {"category", category},
                                     {"title", "Hisobot tayyor"},
                                     {"body", "Haftalik hisobot"},
                                     {"channels", {"email"}}});
    EXPECT_EQ(created.status, 201) << created.body;
    // Its deliveries are made with it: none means the preferences chose no email.
    const json made = ParseJsonOrDiscarded(
        api_->Call("GET", "/v1/notifications/" + ParseJsonOrDiscarded(created.body)["id"].dump())
            .body);
    if (made["deliveries"].empty()) return nullptr;
    const json settled = SettledNotification(*api_, ParseJsonOrDiscarded(created.body), 60s);
    const json email = DeliveryOn(settled, "email");
    if (!email.is_object()) return nullptr;
    const json items = ParseJsonOrDiscarded(
        api_->Call("GET", "/v1/deliveries?channel=email&user_id=" + std::to_string(user))
            .body)["items"];
    for (const json& d : items) {
      if (d["id"] == email["id"]) return d;
    }
    return nullptr;
  }

  net::HttpResponse Webhook(const json& record) {
    return api_->CallUnauthenticated(
        "POST", "/v1/email/receipts/postmark", record.dump(),
        {"Content-Type: application/json",
         "Authorization: Basic " + core::Base64Encode(std::string("chopar:hook-pass"))});
  }

  FakeHttpServer postmark_{[this](const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    response.body = json({{"ErrorCode", 0},
                          {"Message", "OK"},
                          {"MessageID", "pm-" + std::to_string(request.delivery_id.value_or(0))}})
                        .dump();
    return response;
  }};
  std::unique_ptr<testing::ChildProcess> serve_;
  std::unique_ptr<Api> api_;
};

TEST_F(EmailReceiptsBlackBox, AHardBounceSuppressesTheAddressUntilTheSuppressionIsDeleted) {
  ASSERT_EQ(api_->Call("PUT", "/v1/users/1", {{"email", "Aziz@Example.uz"}}).status, 200);
  const json first = Notify(1, "tasks");
  ASSERT_EQ(first["status"], "sent") << first.dump();
  ASSERT_EQ(first["provider_message_id"], "pm-" + first["id"].dump());

  const auto bounced = Webhook({{"RecordType", "Bounce"},
                                {"Type", "HardBounce"},
                                {"TypeCode", 1},
                                {"MessageID", first["provider_message_id"]},
                                {"Email", "aziz@example.uz"},
                                {"Description", "550 5.1.1 mailbox unavailable"},
                                {"BouncedAt", "2026-12-06T10:00:00Z"},
                                {"Inactive", true}});
  ASSERT_EQ(bounced.status, 200) << bounced.body;
  EXPECT_EQ(ParseJsonOrDiscarded(bounced.body)["suppressed"], 1);

  const std::size_t sent_before = postmark_.request_count();
  const json skipped = Notify(1, "tasks");
  EXPECT_EQ(skipped["status"], "skipped") << skipped.dump();
  EXPECT_TRUE(skipped["last_error"].get<std::string>().starts_with("suppressed: bounce (postmark"))
      << skipped.dump();
  EXPECT_EQ(postmark_.request_count(), sent_before) << "a suppressed address is never sent to";
  const json listed = ParseJsonOrDiscarded(api_->Call("GET", "/v1/suppressions").body)["items"];
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_EQ(listed[0]["address"], "aziz@example.uz");

  EXPECT_EQ(api_->Call("DELETE", "/v1/suppressions/email/aziz@example.uz").status, 204);
  const json restored = Notify(1, "tasks");
  EXPECT_EQ(restored["status"], "sent") << restored.dump();
}

TEST_F(EmailReceiptsBlackBox, AComplaintTurnsEmailOffForThatCategoryOnly) {
  ASSERT_EQ(api_->Call("PUT", "/v1/users/2", {{"email", "vali@example.uz"}}).status, 200);
  const json first = Notify(2, "marketing");
  ASSERT_EQ(first["status"], "sent") << first.dump();
  const auto complained = Webhook({{"RecordType", "SpamComplaint"},
                                   {"MessageID", first["provider_message_id"]},
                                   {"Email", "vali@example.uz"},
                                   {"BouncedAt", "2026-12-06T10:00:00Z"},
                                   {"Type", "SpamComplaint"},
                                   {"TypeCode", 512}});
  ASSERT_EQ(complained.status, 200) << complained.body;
  EXPECT_EQ(ParseJsonOrDiscarded(complained.body)["unsubscribed"], 1);

  EXPECT_TRUE(Notify(2, "marketing").is_null()) << "email is off for marketing";
  const json other = Notify(2, "tasks");
  EXPECT_EQ(other["status"], "sent") << other.dump();
}

}  // namespace
}  // namespace chopar
