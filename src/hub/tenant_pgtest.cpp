// Tenants in the data path: memberships, notifications in a tenant, the
// tenant's template, default preferences and branding (issue 31).
#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/stored_request.hpp"
#include "hub/user_request.hpp"
#include "hub/user_service.hpp"
#include "templates/template_store.hpp"
#include "testing/test_database.hpp"

namespace chopar::hub {
namespace {

using core::ChannelKind;
using Kinds = std::vector<ChannelKind>;

class TenantDataTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    templates_ = std::make_unique<templates::TemplateStore>(*pool_, db_->url());
    templates_->Start();
    users_ = std::make_unique<UserService>(*pool_, UserService::Options{});
    notify_ = std::make_unique<NotifyService>(*pool_, clock_, metrics_, templates_.get());
    inbox_ = std::make_unique<InboxService>(*pool_);
    AddTenant("acme", R"({"sender_name": "Acme", "footer": "Acme Inc."})",
              R"({"email": false, "sms": true})");
    AddTenant("globex", "{}", "{}");
  }
  void TearDown() override {
    if (templates_) templates_->Stop();
  }

  void AddTenant(const std::string& key, const std::string& branding,
                 const std::string& preferences) {
    db_->Scalar("INSERT INTO chopar.tenants (key, name, branding, preferences) VALUES ('" + key +
                "', '" + key + " Ltd', '" + branding + "', '" + preferences + "')");
  }

  User PutUser(std::int64_t id, const nlohmann::json& body,
               const std::optional<std::string>& confined = std::nullopt) {
    return users_->PutUser(id, ParseUserUpdate(body), confined);
  }

  static NotificationRequest Request(std::int64_t user, std::optional<std::string> tenant) {
    NotificationRequest r;
    r.user_id = user;
    r.type = "task.due";
    r.title = "Due";
    r.tenant = std::move(tenant);
    return r;
  }

  static core::ErrorCode CodeOf(const std::function<void()>& call) {
    try {
      call();
    } catch (const core::RequestError& e) {
      return e.code();
    }
    ADD_FAILURE() << "no request error";
    return core::ErrorCode::kUnavailable;
  }

  core::SystemClock clock_;
  core::MetricsRegistry metrics_;
  std::unique_ptr<templates::TemplateStore> templates_;
  std::unique_ptr<UserService> users_;
  std::unique_ptr<NotifyService> notify_;
  std::unique_ptr<InboxService> inbox_;
};

TEST_F(TenantDataTest, AUsersTenantsAreReplacedAndUnknownOnesRefusedByPosition) {
  EXPECT_EQ(PutUser(1, {{"tenants", {"globex", "acme"}}}).tenants,
            (std::vector<std::string>{"acme", "globex"}));
  try {
    PutUser(1, {{"tenants", {"acme", "initech"}}, {"email", "a@example.uz"}});
    ADD_FAILURE() << "an unknown tenant was accepted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField);
    EXPECT_EQ(e.field(), "tenants[1]");
  }
  const User kept = users_->GetUser(1);
  EXPECT_EQ(kept.tenants, (std::vector<std::string>{"acme", "globex"})) << "nothing changed";
  EXPECT_FALSE(kept.email);
  EXPECT_EQ(PutUser(1, {{"tenants", {"globex"}}}).tenants, std::vector<std::string>{"globex"});
  EXPECT_EQ(PutUser(1, {{"email", "a@example.uz"}}).tenants, std::vector<std::string>{"globex"})
      << "left out: kept";
  EXPECT_TRUE(PutUser(1, {{"tenants", nullptr}}).tenants.empty());
  PutUser(1, {{"tenants", {"acme"}}});
  db_->Scalar("DELETE FROM chopar.tenants WHERE key = 'acme'");
  EXPECT_TRUE(users_->GetUser(1).tenants.empty()) << "the tenant's deletion takes the membership";
}

TEST_F(TenantDataTest, AConfinedCallerCreatesMembersAndCannotReachOthers) {
  EXPECT_EQ(PutUser(1, {{"email", "a@example.uz"}}, "acme").tenants,
            std::vector<std::string>{"acme"});
  PutUser(2, {{"tenants", {"globex"}}});
  EXPECT_EQ(CodeOf([&] {
              PutUser(2, {{"email", "b@example.uz"}}, "acme");
            }),
            core::ErrorCode::kUserNotFound);
  EXPECT_FALSE(users_->GetUser(2).email) << "the other tenant's user is unchanged";
  EXPECT_EQ(CodeOf([&] { users_->GetUser(2, "acme"); }), core::ErrorCode::kUserNotFound);
  EXPECT_EQ(CodeOf([&] { users_->RequireUser(2, "acme"); }), core::ErrorCode::kUserNotFound);
  EXPECT_EQ(CodeOf([&] {
              PutUser(3, {{"tenants", {"globex"}}}, "acme");
            }),
            core::ErrorCode::kForbidden);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users WHERE id = 3"), 0);
  // A member of both: the confined caller changes it and keeps the other membership.
  PutUser(4, {{"tenants", {"acme", "globex"}}});
  EXPECT_EQ(PutUser(4, {{"locale", "uz"}, {"tenants", {"acme"}}}, "acme").tenants,
            (std::vector<std::string>{"acme", "globex"}));
  EXPECT_EQ(users_->GetUser(4, "acme").locale, "uz");
}

TEST_F(TenantDataTest, ANotificationInATenantNeedsAMemberAndIsFilteredByIt) {
  PutUser(1, {{"tenants", {"acme"}}});
  EXPECT_EQ(CodeOf([&] { notify_->Notify(Request(1, "globex")); }), core::ErrorCode::kInvalidField);
  EXPECT_EQ(CodeOf([&] { notify_->Notify(Request(1, "initech")); }),
            core::ErrorCode::kInvalidField);
  const auto in_acme = notify_->Notify(Request(1, "acme")).id;
  const auto outside = notify_->Notify(Request(1, std::nullopt)).id;
  EXPECT_EQ(inbox_->GetNotification(in_acme).notification.tenant, "acme");
  EXPECT_FALSE(inbox_->GetNotification(outside).notification.tenant);
  EXPECT_EQ(CodeOf([&] { inbox_->GetNotification(outside, "acme"); }), core::ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf([&] { inbox_->GetNotification(in_acme, "globex"); }),
            core::ErrorCode::kNotFound);

  EXPECT_EQ(inbox_->List(1, {}).items.size(), 2u) << "without a tenant: everything";
  const auto acme_only = inbox_->List(1, {.filter = {.tenant = "acme"}}).items;
  ASSERT_EQ(acme_only.size(), 1u);
  EXPECT_EQ(acme_only[0].id, in_acme);
  EXPECT_TRUE(inbox_->List(1, {.unread_only = true, .filter = {.tenant = "globex"}}).items.empty());
  EXPECT_EQ(inbox_->UnreadCount(1), 2);
  EXPECT_EQ(inbox_->UnreadCount(1, InboxService::ReadFrom::kPrimary, "acme"), 1);

  // A batch: each item on its own.
  const auto results = notify_->NotifyBatch({Request(1, "acme"), Request(1, "globex")});
  EXPECT_TRUE(std::holds_alternative<NotifyResult>(results[0]));
  EXPECT_TRUE(std::holds_alternative<core::RequestError>(results[1]));
}

TEST_F(TenantDataTest, ADelayedNotificationKeepsItsTenantInVersion2) {
  PutUser(1, {{"tenants", {"acme"}}});
  NotificationRequest later = Request(1, "acme");
  later.delay_seconds = 3600;
  ASSERT_TRUE(notify_->Notify(later).send_at);
  EXPECT_EQ(db_->Scalar("SELECT request_version || ' ' || (request ->> 'tenant') "
                        "FROM chopar.delayed_notifications"),
            "2 acme");
  NotificationRequest plain = Request(1, std::nullopt);
  plain.delay_seconds = 3600;
  ASSERT_TRUE(notify_->Notify(plain).send_at);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.delayed_notifications "
                       "WHERE request_version = 1 AND NOT request ? 'tenant'"),
            1)
      << "one without a tenant stays version 1";
}

TEST_F(TenantDataTest, ATenantsTemplateReplacesTheGlobalOneInThatTenantOnly) {
  templates_->Put(templates::ParseTemplate(
      "task.due", {{"default_locale", "en"}, {"locales", {{"en", {{"title", "Global"}}}}}}));
  templates_->Put(
      templates::ParseTemplate(
          "task.due", {{"default_locale", "en"}, {"locales", {{"en", {{"title", "Acme's"}}}}}}),
      "acme");
  EXPECT_EQ(templates_->Get("task.due", "acme").tenant, "acme");
  EXPECT_FALSE(templates_->Get("task.due").tenant);
  EXPECT_EQ(templates_->List("acme").size(), 1u);
  EXPECT_EQ(templates_->List().size(), 1u) << "the global list has the global ones";
  EXPECT_EQ(CodeOf([&] { templates_->Get("task.due", "globex"); }), core::ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf([&] {
              templates_->Put(
                  templates::ParseTemplate("task.due", {{"default_locale", "en"},
                                                        {"locales", {{"en", {{"title", "x"}}}}}}),
                  "initech");
            }),
            core::ErrorCode::kNotFound);

  PutUser(1, {{"tenants", {"acme", "globex"}}});
  const auto untitled = [](std::optional<std::string> tenant) {
    NotificationRequest r = Request(1, std::move(tenant));
    r.title.clear();
    return r;
  };
  const auto title_of = [&](std::int64_t id) {
    return inbox_->GetNotification(id).notification.title;
  };
  EXPECT_EQ(title_of(notify_->Notify(untitled("acme")).id), "Acme's");
  EXPECT_EQ(title_of(notify_->Notify(untitled("globex")).id), "Global");
  EXPECT_EQ(title_of(notify_->Notify(untitled(std::nullopt)).id), "Global");

  // Another process's cache hears of it (NOTIFY '<tenant>/<type>').
  templates::TemplateStore elsewhere(*pool_, db_->url());
  elsewhere.Start();
  EXPECT_NE(elsewhere.FindFor("task.due", "acme"), elsewhere.Find("task.due"));
  templates_->Delete("task.due", "acme");
  elsewhere.ReloadType("acme/task.due");
  EXPECT_EQ(elsewhere.FindFor("task.due", "acme"), elsewhere.Find("task.due"));
  EXPECT_EQ(title_of(notify_->Notify(untitled("acme")).id), "Global");
  elsewhere.Stop();
}

TEST_F(TenantDataTest, TheTenantsDefaultPreferencesApplyWhereTheUserSetNothing) {
  // acme: email off, SMS on by default.
  PutUser(1, {{"email", "a@example.uz"}, {"phone", "+998901111111"}, {"tenants", {"acme"}}});
  PutUser(2, {{"email", "b@example.uz"},
              {"phone", "+998902222222"},
              {"tenants", {"acme"}},
              {"preferences", {{"email", true}, {"sms", false}}}});
  EXPECT_EQ(notify_->Notify(Request(1, "acme")).channels, Kinds{ChannelKind::kSms});
  EXPECT_EQ(notify_->Notify(Request(2, "acme")).channels, Kinds{ChannelKind::kEmail})
      << "the user's own settings win";
  EXPECT_EQ(notify_->Notify(Request(1, std::nullopt)).channels, Kinds{ChannelKind::kEmail})
      << "outside the tenant: the global defaults";
}

TEST_F(TenantDataTest, TheTenantsBrandingGoesWithTheEmailInTheContent) {
  PutUser(1, {{"email", "a@example.uz"},
              {"tenants", {"acme", "globex"}},
              {"preferences", {{"email", true}}}});
  const auto id = notify_->Notify(Request(1, "acme")).id;
  EXPECT_EQ(db_->Scalar("SELECT content -> 'email' -> 'branding' ->> 'sender_name' "
                        "FROM chopar.notifications WHERE id = " +
                        std::to_string(id)),
            "Acme");
  const auto plain = notify_->Notify(Request(1, "globex")).id;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE content IS NULL AND id = " +
                       std::to_string(plain)),
            1)
      << "a tenant without branding adds nothing";
}

}  // namespace
}  // namespace chopar::hub
