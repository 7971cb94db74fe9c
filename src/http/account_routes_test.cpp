// What a console session may do: its role's scopes, as the dispatcher checks
// them (docs/api.md "Console accounts").
#include "http/account_routes.hpp"

#include <gtest/gtest.h>

namespace chopar::http {
namespace {

console::Session SessionOf(std::optional<console::Role> role) {
  console::Session session;
  session.id = 9;
  session.csrf_token = "csrf";
  if (role) {
    console::Account account;
    account.id = 4;
    account.email = "ops@example.uz";
    account.role = *role;
    session.account = account;
  }
  return session;
}

TEST(AccountScopesTest, AViewerReadsOnly) {
  const ScopeSet scopes = ScopesOf(console::Role::kViewer);
  EXPECT_TRUE(scopes.Has(Scope::kRead));
  for (Scope scope : {Scope::kNotify, Scope::kOperate, Scope::kManage, Scope::kAdmin}) {
    EXPECT_FALSE(scopes.Has(scope)) << ScopeName(scope);
  }
}

TEST(AccountScopesTest, AnOperatorAlsoOperatesButManagesNothing) {
  const ScopeSet scopes = ScopesOf(console::Role::kOperator);
  EXPECT_TRUE(scopes.Has(Scope::kRead));
  EXPECT_TRUE(scopes.Has(Scope::kOperate));
  for (Scope scope : {Scope::kNotify, Scope::kManage, Scope::kAdmin}) {
    EXPECT_FALSE(scopes.Has(scope)) << ScopeName(scope);
  }
}

TEST(AccountScopesTest, AnAdminHoldsEveryScope) {
  const ScopeSet scopes = ScopesOf(console::Role::kAdmin);
  for (Scope scope :
       {Scope::kNotify, Scope::kRead, Scope::kOperate, Scope::kManage, Scope::kAdmin}) {
    EXPECT_TRUE(scopes.Has(scope)) << ScopeName(scope);
  }
}

TEST(AccountScopesTest, ASessionIsItsAccountsCallerWithItsCsrfToken) {
  const Caller caller = CallerOf(SessionOf(console::Role::kOperator));
  EXPECT_EQ(caller.kind, Caller::Kind::kAccount);
  EXPECT_EQ(caller.id, 4);
  EXPECT_EQ(caller.name, "ops@example.uz");
  EXPECT_EQ(caller.csrf_token, "csrf");
  EXPECT_TRUE(caller.scopes.Has(Scope::kOperate));
  EXPECT_FALSE(caller.scopes.Has(Scope::kManage));
  EXPECT_FALSE(caller.tenant);
}

TEST(AccountScopesTest, TheBootstrapKeysSessionIsTheKeyWithEveryScope) {
  const Caller caller = CallerOf(SessionOf(std::nullopt));
  EXPECT_EQ(caller.kind, Caller::Kind::kBootstrapKey);
  EXPECT_EQ(caller.id, 0);
  EXPECT_TRUE(caller.scopes.Has(Scope::kAdmin));
  EXPECT_EQ(caller.csrf_token, "csrf");
}

}  // namespace
}  // namespace chopar::http
