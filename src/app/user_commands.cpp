#include "app/user_commands.hpp"

#include <iostream>

#include "app/database_setup.hpp"
#include "console/accounts.hpp"
#include "core/clock.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/pool.hpp"

namespace chopar::app {
namespace {

// The configured database (migrated first; an embedded one runs while this
// lives), a small pool on it and the accounts.
struct Accounts {
  explicit Accounts(const Config& config)
      : database(config), pool(CommandPoolSettings(database, 1)) {}

  DatabaseSetup database;
  db::Pool pool;
  core::SystemClock clock;
  console::AccountService service{pool, clock};
};

}  // namespace

int RunUserAdd(const Config& config, const UserAddFlags& flags, std::istream& in, std::ostream& out,
               std::ostream& err) {
  const auto role = console::ParseRole(flags.role);
  if (!role) {
    err << "chopar users add: --role must be admin, operator or viewer\n";
    return 2;
  }
  std::string password;
  if (flags.password_stdin) {
    std::getline(in, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
  } else {
    password = console::GeneratePassword();
  }
  Accounts database(config);
  console::AccountService& accounts = database.service;
  try {
    const console::Account account =
        accounts.Add({.email = flags.email, .role = *role, .password = password});
    out << "added console account " << account.id << ": " << account.email << " ("
        << console::RoleName(account.role) << ")\n";
    if (!flags.password_stdin) {
      out << "password: " << password << "\n(shown once; it is stored only as a hash)\n";
    }
    return 0;
  } catch (const core::RequestError& e) {
    err << "chopar users add: " << e.what() << "\n";
    return 2;
  }
}

int RunUserList(const Config& config, std::ostream& out) {
  Accounts database(config);
  console::AccountService& accounts = database.service;
  for (const auto& account : accounts.List()) {
    out << account.id << " " << account.email << " " << console::RoleName(account.role) << " "
        << core::FormatRfc3339(account.created_at) << "\n";
  }
  return 0;
}

int RunUserDelete(const Config& config, const std::string& email, std::ostream& out,
                  std::ostream& err) {
  Accounts database(config);
  console::AccountService& accounts = database.service;
  try {
    accounts.DeleteByEmail(email);
    out << "deleted console account " << email << "\n";
    return 0;
  } catch (const core::RequestError& e) {
    err << "chopar users delete: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace chopar::app
