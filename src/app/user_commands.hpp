#pragma once

#include <iosfwd>
#include <string>

#include "app/config.hpp"

namespace chopar::app {

struct UserAddFlags {
  std::string email;
  std::string role;
  bool password_stdin = false;  // read the password from stdin, else generate one
};

// `chopar users add --email E --role admin|operator|viewer [--password-stdin]`:
// adds a console account on the configured database (migrated first). The
// password is stdin's first line with --password-stdin; without it a strong
// one is generated and printed once on `out`. Returns the exit code: 2 for a
// bad email, role or password or an email that exists, with the message on
// `err`.
int RunUserAdd(const Config& config, const UserAddFlags& flags, std::istream& in, std::ostream& out,
               std::ostream& err);
// `chopar users list`: one "id email role created_at" line per account.
int RunUserList(const Config& config, std::ostream& out);
// `chopar users delete --email E`: deletes the account and its sessions;
// 2 for an unknown email or the last admin.
int RunUserDelete(const Config& config, const std::string& email, std::ostream& out,
                  std::ostream& err);

}  // namespace chopar::app
