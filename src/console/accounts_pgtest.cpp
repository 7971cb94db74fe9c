#include <gtest/gtest.h>

#include <memory>

#include "console/accounts.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "testing/test_database.hpp"

namespace chopar::console {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPassword = "correct horse battery";

core::ErrorCode CodeOf(const std::function<void()>& call, std::string* field = nullptr) {
  try {
    call();
  } catch (const core::RequestError& e) {
    if (field) *field = e.field().value_or("");
    return e.code();
  }
  ADD_FAILURE() << "no RequestError";
  return core::ErrorCode::kBadRequest;
}

// Two services on one database: two processes of one deployment.
class AccountsPgTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    AccountSettings settings;
    settings.bootstrap_key = "bootstrap-key";
    first_ = std::make_unique<AccountService>(*pool_, clock_, settings);
    second_ = std::make_unique<AccountService>(*pool_, clock_, settings);
  }

  Account AddAdmin(const std::string& email) {
    return first_->Add({.email = email, .role = Role::kAdmin, .password = kPassword});
  }

  SignInOutcome SignIn(AccountService& service, const std::string& email,
                       const std::string& password, const std::string& address = "192.0.2.1") {
    return service.SignIn(
        {.email = email, .password = password, .address = address, .user_agent = "test"});
  }

  core::SimulatedClock clock_{*core::ParseRfc3339("2026-03-01T10:00:00Z")};
  std::unique_ptr<AccountService> first_;
  std::unique_ptr<AccountService> second_;
};

TEST_F(AccountsPgTest, PasswordIsStoredOnlyAsAnArgon2idHashAndVerifies) {
  const Account account = AddAdmin("Ops@Example.uz");
  EXPECT_EQ(account.email, "Ops@Example.uz");
  EXPECT_EQ(account.role, Role::kAdmin);
  const std::string hash = db_->Scalar("SELECT password_hash FROM chopar.console_accounts");
  EXPECT_EQ(hash.rfind("$argon2id$", 0), 0u) << hash;
  EXPECT_EQ(hash.find(kPassword), std::string::npos);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.console_accounts WHERE password_hash LIKE "
                       "'%correct horse%'"),
            0);

  // Any case of the email signs in; the session's token is not stored.
  const auto outcome = SignIn(*first_, "ops@example.UZ", kPassword);
  ASSERT_EQ(outcome.kind, SignInOutcome::Kind::kSignedIn);
  const OpenedSession& opened = *outcome.session;
  EXPECT_EQ(opened.token.size(), 43u);
  EXPECT_EQ(opened.session.expires_at, clock_.Now() + 12h);
  ASSERT_TRUE(opened.session.account);
  EXPECT_EQ(opened.session.account->id, account.id);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.console_sessions WHERE token_hash = "
                       "sha256(convert_to('" +
                       opened.token + "', 'UTF8'))"),
            1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.console_sessions s WHERE s::text LIKE '%" +
                       opened.token + "%'"),
            0);
  const auto resolved = second_->Resolve(opened.token);
  ASSERT_TRUE(resolved);
  EXPECT_EQ(resolved->id, opened.session.id);
  EXPECT_EQ(resolved->csrf_token, opened.session.csrf_token);
  EXPECT_EQ(resolved->account->role, Role::kAdmin);

  EXPECT_EQ(SignIn(*first_, "ops@example.uz", "wrong password!!").kind,
            SignInOutcome::Kind::kRefused);
  EXPECT_EQ(SignIn(*first_, "nobody@example.uz", kPassword).kind, SignInOutcome::Kind::kRefused);
}

TEST_F(AccountsPgTest, AddRefusesBadFieldsAndADuplicateEmailInAnyCase) {
  std::string field;
  EXPECT_EQ(CodeOf(
                [&] {
                  first_->Add({"not-an-email", Role::kViewer, kPassword});
                },
                &field),
            core::ErrorCode::kInvalidField);
  EXPECT_EQ(field, "email");
  EXPECT_EQ(CodeOf(
                [&] {
                  first_->Add({"a@example.uz", Role::kViewer, "short"});
                },
                &field),
            core::ErrorCode::kInvalidField);
  EXPECT_EQ(field, "password");
  EXPECT_EQ(CodeOf(
                [&] {
                  first_->Add({"a@example.uz", Role::kViewer, std::string(1025, 'x')});
                },
                &field),
            core::ErrorCode::kInvalidField);
  first_->Add({"a@example.uz", Role::kViewer, std::string(12, 'x')});
  EXPECT_EQ(CodeOf([&] {
              first_->Add({"A@EXAMPLE.UZ", Role::kAdmin, kPassword});
            }),
            core::ErrorCode::kConflict);
  EXPECT_EQ(first_->List().size(), 1u);
}

TEST_F(AccountsPgTest, FiveFailuresOfAnAccountThrottleItInEveryProcessUntilTheWindowPasses) {
  AddAdmin("ops@example.uz");
  // Failures alternate between the two processes and come from different
  // addresses: the count is the account's, in the database.
  for (int i = 0; i < 5; ++i) {
    AccountService& service = i % 2 == 0 ? *first_ : *second_;
    EXPECT_EQ(
        SignIn(service, "ops@example.uz", "wrong password!!", "198.51.100." + std::to_string(i))
            .kind,
        SignInOutcome::Kind::kRefused);
  }
  // The right password is not even checked now.
  const auto throttled = SignIn(*second_, "OPS@example.uz", kPassword, "203.0.113.9");
  EXPECT_EQ(throttled.kind, SignInOutcome::Kind::kThrottled);
  EXPECT_EQ(throttled.retry_after, 15min);
  // Another account is not throttled.
  first_->Add({"viewer@example.uz", Role::kViewer, kPassword});
  EXPECT_EQ(SignIn(*first_, "viewer@example.uz", kPassword, "203.0.113.9").kind,
            SignInOutcome::Kind::kSignedIn);

  clock_.Advance(10min);
  EXPECT_EQ(SignIn(*first_, "ops@example.uz", kPassword).retry_after, 5min);
  clock_.Advance(5min);
  EXPECT_EQ(SignIn(*first_, "ops@example.uz", kPassword).kind, SignInOutcome::Kind::kSignedIn);
  // A success starts the account's count again.
  for (int i = 0; i < 5; ++i) SignIn(*second_, "ops@example.uz", "wrong password!!");
  EXPECT_EQ(SignIn(*first_, "ops@example.uz", kPassword).kind, SignInOutcome::Kind::kThrottled);
}

TEST_F(AccountsPgTest, TwentyFailuresFromAnAddressThrottleItForEveryEmail) {
  AddAdmin("ops@example.uz");
  for (int i = 0; i < 20; ++i) {
    AccountService& service = i % 2 == 0 ? *first_ : *second_;
    EXPECT_EQ(
        SignIn(service, "guess" + std::to_string(i) + "@example.uz", kPassword, "192.0.2.7").kind,
        SignInOutcome::Kind::kRefused);
  }
  EXPECT_EQ(SignIn(*second_, "ops@example.uz", kPassword, "192.0.2.7").kind,
            SignInOutcome::Kind::kThrottled);
  // The wrong bootstrap key is counted the same way, per address.
  EXPECT_EQ(second_->SignInWithKey("bootstrap-key", "192.0.2.7", "").kind,
            SignInOutcome::Kind::kRefused);  // an account exists: not even compared
  EXPECT_EQ(SignIn(*first_, "ops@example.uz", kPassword, "192.0.2.8").kind,
            SignInOutcome::Kind::kSignedIn);
  clock_.Advance(15min);
  EXPECT_EQ(SignIn(*first_, "ops@example.uz", kPassword, "192.0.2.7").kind,
            SignInOutcome::Kind::kSignedIn);
  // Windows that passed are forgotten by later failures.
  SignIn(*first_, "ops@example.uz", "wrong password!!", "192.0.2.7");
  EXPECT_LE(db_->Count("SELECT count(*) FROM chopar.console_sign_in_failures"), 3);
}

TEST_F(AccountsPgTest, SessionsEndWhenTheyExpireOrAreRevoked) {
  const Account admin = AddAdmin("ops@example.uz");
  const auto first = SignIn(*first_, "ops@example.uz", kPassword);
  const auto second = SignIn(*second_, "ops@example.uz", kPassword);
  ASSERT_EQ(first.kind, SignInOutcome::Kind::kSignedIn);
  ASSERT_EQ(second.kind, SignInOutcome::Kind::kSignedIn);
  const std::string token = first.session->token;
  EXPECT_EQ(first_->ListSessions(admin.id).size(), 2u);

  // last_seen_at moves at most once a minute.
  clock_.Advance(30s);
  EXPECT_EQ(second_->Resolve(token)->last_seen_at, first.session->session.created_at);
  clock_.Advance(31s);
  EXPECT_EQ(second_->Resolve(token)->last_seen_at, clock_.Now());

  first_->Revoke(first.session->session.id);
  first_->Revoke(first.session->session.id);  // again: nothing changes
  EXPECT_FALSE(second_->Resolve(token));
  EXPECT_TRUE(second_->Resolve(second.session->token));
  EXPECT_EQ(CodeOf([&] { first_->Revoke(999999); }), core::ErrorCode::kNotFound);

  clock_.Advance(12h);
  EXPECT_FALSE(first_->Resolve(second.session->token));
  EXPECT_TRUE(first_->ListSessions(std::nullopt).empty());

  const auto third = SignIn(*first_, "ops@example.uz", kPassword);
  const auto fourth = SignIn(*first_, "ops@example.uz", kPassword);
  EXPECT_EQ(first_->RevokeAll(admin.id), 2);
  EXPECT_FALSE(first_->Resolve(third.session->token));
  EXPECT_FALSE(first_->Resolve(fourth.session->token));
  EXPECT_FALSE(first_->Resolve("not a token"));
  EXPECT_FALSE(first_->Resolve(std::string(43, 'A')));
}

TEST_F(AccountsPgTest, TheLastAdminCannotBeDeletedOrDemoted) {
  const Account admin = AddAdmin("ops@example.uz");
  const Account viewer = first_->Add({"viewer@example.uz", Role::kViewer, kPassword});
  EXPECT_EQ(CodeOf([&] { first_->Delete(admin.id); }), core::ErrorCode::kConflict);
  EXPECT_EQ(CodeOf([&] { first_->ChangeRole(admin.id, Role::kOperator); }),
            core::ErrorCode::kConflict);
  EXPECT_EQ(CodeOf([&] { first_->Delete(424242); }), core::ErrorCode::kNotFound);

  EXPECT_EQ(second_->ChangeRole(viewer.id, Role::kAdmin).role, Role::kAdmin);
  const auto session = SignIn(*first_, "ops@example.uz", kPassword);
  EXPECT_EQ(first_->ChangeRole(admin.id, Role::kOperator).role, Role::kOperator);
  // The session reads the role as it is now.
  EXPECT_EQ(first_->Resolve(session.session->token)->account->role, Role::kOperator);
  EXPECT_EQ(CodeOf([&] { second_->DeleteByEmail("VIEWER@example.uz"); }),
            core::ErrorCode::kConflict);
  first_->Delete(admin.id);
  // Its sessions went with it.
  EXPECT_FALSE(first_->Resolve(session.session->token));
  EXPECT_EQ(first_->List().size(), 1u);
}

TEST_F(AccountsPgTest, TheBootstrapKeySignsInOnlyWhileNoAccountExists) {
  EXPECT_FALSE(first_->AnyExists());
  EXPECT_EQ(first_->SignInWithKey("wrong", "192.0.2.1", "").kind, SignInOutcome::Kind::kRefused);
  const auto outcome = first_->SignInWithKey("bootstrap-key", "192.0.2.1", "browser");
  ASSERT_EQ(outcome.kind, SignInOutcome::Kind::kSignedIn);
  EXPECT_FALSE(outcome.session->session.account);
  const auto resolved = second_->Resolve(outcome.session->token);
  ASSERT_TRUE(resolved);
  EXPECT_FALSE(resolved->account);

  // Another key: the session of the old one ends.
  AccountSettings rotated;
  rotated.bootstrap_key = "another-key";
  AccountService after_rotation(*pool_, clock_, rotated);
  EXPECT_FALSE(after_rotation.Resolve(outcome.session->token));

  AddAdmin("ops@example.uz");
  const auto refused = first_->SignInWithKey("bootstrap-key", "192.0.2.1", "");
  EXPECT_EQ(refused.kind, SignInOutcome::Kind::kRefused);
  EXPECT_TRUE(refused.accounts_exist);
}

TEST(GeneratePasswordTest, IsLongAndDifferentEachTime) {
  const std::string a = GeneratePassword();
  EXPECT_EQ(a.size(), 24u);
  EXPECT_GE(a.size(), kMinPasswordBytes);
  EXPECT_NE(a, GeneratePassword());
}

}  // namespace
}  // namespace chopar::console
