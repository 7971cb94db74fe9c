#include "http/account_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {
namespace {

std::string_view RoleOf(const console::Session& session) {
  return console::RoleName(session.account ? session.account->role : console::Role::kAdmin);
}

}  // namespace

nlohmann::json AccountView(const console::Account& account) {
  return {{"id", account.id},
          {"email", account.email},
          {"role", console::RoleName(account.role)},
          {"created_at", TimeView(account.created_at)},
          {"updated_at", TimeView(account.updated_at)}};
}

nlohmann::json SessionView(const console::Session& session) {
  return {{"id", session.id},
          {"account_id", session.account ? nlohmann::json(session.account->id) : nullptr},
          {"email", session.account ? nlohmann::json(session.account->email) : nullptr},
          {"role", RoleOf(session)},
          {"created_at", TimeView(session.created_at)},
          {"last_seen_at", TimeView(session.last_seen_at)},
          {"expires_at", TimeView(session.expires_at)},
          {"address", session.address},
          {"user_agent", session.user_agent}};
}

nlohmann::json SignedInView(const console::Session& session) {
  nlohmann::json account = nullptr;
  if (session.account) {
    account = {{"id", session.account->id},
               {"email", session.account->email},
               {"role", console::RoleName(session.account->role)}};
  }
  return {{"account", std::move(account)},
          {"role", RoleOf(session)},
          {"csrf_token", session.csrf_token},
          {"expires_at", TimeView(session.expires_at)}};
}

}  // namespace chopar::http
