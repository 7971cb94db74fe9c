#pragma once

#include <nlohmann/json.hpp>

#include "console/accounts.hpp"

namespace chopar::http {

// The JSON of console accounts and sessions (docs/api.md "Console
// accounts").

// {"id", "email", "role", "created_at", "updated_at"}
nlohmann::json AccountView(const console::Account& account);
// {"id", "account_id", "email", "role", "created_at", "last_seen_at",
//  "expires_at", "address", "user_agent"}; account_id and email are null
// for a session of the bootstrap key (role "admin"). Never the CSRF token.
nlohmann::json SessionView(const console::Session& session);
// What POST /v1/console/sign-in and GET /v1/console/session answer:
// {"account": {"id", "email", "role"} | null, "role", "csrf_token",
//  "expires_at"}.
nlohmann::json SignedInView(const console::Session& session);

}  // namespace chopar::http
