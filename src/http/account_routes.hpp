#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "console/accounts.hpp"
#include "http/caller.hpp"
#include "http/router.hpp"

namespace chopar::http {

// Console accounts and their sessions (docs/api.md "Console accounts"):
//   no credentials: GET /v1/console/sign-in ({"accounts_exist"}),
//                   POST /v1/console/sign-in (email and password, or the
//                   bootstrap api_key while no account exists; sets the
//                   session cookie)
//   a session:      POST /v1/console/sign-out, GET /v1/console/session
//   admin:          GET, POST /v1/console/accounts,
//                   PATCH, DELETE /v1/console/accounts/{id},
//                   GET /v1/console/sessions?account_id=,
//                   POST /v1/console/sessions/{id}/revoke
// `accounts` must outlive the router.
void RegisterAccountRoutes(Router& router, console::AccountService& accounts);

// The scopes of a console role: viewer → read; operator → operate (and
// read); admin → everything.
ScopeSet ScopesOf(console::Role role);

// The caller of a console session: an account (Caller::Kind::kAccount, its
// id and email, its role's scopes) or the bootstrap key's admin session
// (kBootstrapKey, every scope); with the session's CSRF token.
Caller CallerOf(const console::Session& session);

// What the dispatcher calls with a session cookie's token
// (CredentialResolvers::sessions): AccountService::Resolve as a Caller.
// `accounts` must outlive the function.
std::function<std::optional<Caller>(std::string_view)> SessionResolver(
    console::AccountService& accounts);

}  // namespace chopar::http
