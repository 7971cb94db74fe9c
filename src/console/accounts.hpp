#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::console {

// What a console account may do. The HTTP layer turns a role into scopes
// (http/account_routes.hpp): viewer → read; operator → operate (and read);
// admin → admin (everything).
enum class Role { kViewer, kOperator, kAdmin };

// "viewer", "operator", "admin".
std::string_view RoleName(Role role);
// The role a name spells; nullopt for anything else.
std::optional<Role> ParseRole(std::string_view name);

// A console account as it is read; its password hash never leaves
// AccountService.
struct Account {
  std::int64_t id = 0;
  std::string email;  // as it was added; unique whatever its case
  Role role = Role::kViewer;
  core::TimePoint created_at;
  core::TimePoint updated_at;
};

struct NewAccount {
  std::string email;
  Role role = Role::kViewer;
  std::string password;  // 12..1024 bytes
};

// An open session of the console.
struct Session {
  std::int64_t id = 0;
  // Its account; nullopt: opened with the bootstrap [server] api_key while
  // no account existed (an admin session of that key).
  std::optional<Account> account;
  // What every state-changing request of the session must carry as
  // X-CSRF-Token.
  std::string csrf_token;
  core::TimePoint created_at;
  core::TimePoint last_seen_at;
  core::TimePoint expires_at;
  std::string address;     // the client address it was opened from
  std::string user_agent;  // as sent, truncated to 256 bytes
};

// A session just opened, with its token: the cookie's value, given here
// once and stored nowhere (the database keeps its SHA-256).
struct OpenedSession {
  Session session;
  std::string token;
};

// A sign-in attempt as the request carries it.
struct SignInAttempt {
  std::string email;
  std::string password;
  std::string address;  // the client's address (the per-address throttle's key)
  std::string user_agent;
};

// What a sign-in came to: a value the caller routes on.
struct SignInOutcome {
  enum class Kind {
    kSignedIn,   // `session` is set
    kRefused,    // wrong email or password (one answer for both), or a wrong
                 // or refused key
    kThrottled,  // too many failures: nothing was checked; try after `retry_after`
  };
  Kind kind = Kind::kRefused;
  std::optional<OpenedSession> session;
  std::chrono::seconds retry_after{0};
  // kRefused of SignInWithKey because an account exists (the key no longer
  // signs in to the console).
  bool accounts_exist = false;
};

struct AccountSettings {
  // How long a session lasts from sign-in.
  std::chrono::seconds session_lifetime = std::chrono::hours(12);
  // last_seen_at is moved at most this often.
  std::chrono::seconds touch_interval = std::chrono::minutes(1);
  // Failed sign-ins allowed in one window per account email (whether or not
  // an account has it) and per client address; one more is refused
  // (kThrottled) until the window that counted the first failure ends.
  int failures_per_email = 5;
  int failures_per_address = 20;
  std::chrono::seconds failure_window = std::chrono::minutes(15);
  // The bootstrap [server] api_key: while no account exists it signs in
  // (SignInWithKey) as an admin session, which lasts only while the key is
  // this one. Empty: the key never signs in.
  std::string bootstrap_key;
};

// Password length limits, in bytes.
inline constexpr std::size_t kMinPasswordBytes = 12;
inline constexpr std::size_t kMaxPasswordBytes = 1024;

// Console accounts, their sign-in and sessions, on the database
// (chopar.console_accounts, console_sessions, console_sign_in_failures —
// migration 0040). Passwords are hashed with libsodium's crypto_pwhash_str
// (Argon2id, the INTERACTIVE limits); only the hash is stored. Session
// tokens are 32 random bytes, stored as their SHA-256. Sign-in failures are
// counted in the database, so every process on it shares the throttle.
//
// Times come from `clock` when it is not the real clock (tests), else from
// the database's now(). Requests that are wrong throw core::RequestError
// (400 invalid_field naming the field, 404 not_found, 409 conflict); database
// failures throw as db does. Thread-safe; `pool` and `clock` must outlive
// the service. The first one constructed in a process makes the dummy hash
// an unknown email is checked against (one Argon2id hash, 64 MiB for tens
// of milliseconds). At most one hash per core runs at once in a process;
// further sign-ins wait for one to end.
class AccountService {
 public:
  AccountService(db::Pool& pool, const core::Clock& clock, AccountSettings settings = {});

  // Adds an account. Throws invalid_field "email" (not an address, longer
  // than 254 bytes), "password" (shorter than 12 or longer than 1024 bytes)
  // and conflict for an email an account has already (whatever its case).
  Account Add(const NewAccount& account);
  // Every account, in id order.
  std::vector<Account> List();
  // Whether any account exists.
  bool AnyExists();
  // Changes an account's role and returns it. 404 not_found for an unknown
  // id; 409 conflict for making the last admin something else.
  Account ChangeRole(std::int64_t id, Role role);
  // Deletes an account and, with it, its sessions. 404 not_found for an
  // unknown id; 409 conflict for the last admin.
  void Delete(std::int64_t id);
  // The same, by email (any case): `chopar users delete`.
  void DeleteByEmail(std::string_view email);

  // Checks an email and password and opens a session. Throttled first (see
  // AccountSettings); the work is the same whether or not the email has an
  // account (an unknown email is checked against a dummy hash). Never
  // throws for a wrong email or password (kRefused).
  SignInOutcome SignIn(const SignInAttempt& attempt);
  // While no account exists, the bootstrap key signs in as an admin session
  // (Session::account nullopt); a wrong key is counted per address as a
  // failed sign-in is. Once an account exists the key is refused with
  // accounts_exist set.
  SignInOutcome SignInWithKey(std::string_view key, const std::string& address,
                              const std::string& user_agent);

  // The session of a token, if it is open (not revoked, not expired, and —
  // for a bootstrap key's session — still of the current key). Moves its
  // last_seen_at when that is older than touch_interval. One statement.
  std::optional<Session> Resolve(std::string_view token);
  // Revokes a session (idempotent for one revoked already). 404 not_found
  // for an unknown id.
  void Revoke(std::int64_t session_id);
  // Revokes the session of a token (signing out); nothing for an unknown
  // or revoked one.
  void RevokeToken(std::string_view token);
  // Revokes every open session of an account; returns how many.
  std::int64_t RevokeAll(std::int64_t account_id);
  // The open sessions, newest first (at most 500), of one account or of all.
  std::vector<Session> ListSessions(std::optional<std::int64_t> account_id);

  [[nodiscard]] const AccountSettings& settings() const { return settings_; }

 private:
  // Counts one attempt against the email (if any) and the address; the
  // outcome kThrottled when one of them is over its limit (then nothing is
  // counted).
  std::optional<SignInOutcome> CountAttempt(const std::optional<std::string>& email_key,
                                            const std::string& address);
  // Takes back the attempt CountAttempt counted and opens a session.
  OpenedSession OpenSession(std::optional<std::int64_t> account_id,
                            const std::optional<std::string>& email_key, const std::string& address,
                            const std::string& user_agent);

  db::Pool& pool_;
  const core::Clock& clock_;
  AccountSettings settings_;
  std::string bootstrap_key_hash_;  // SHA-256 of settings_.bootstrap_key, or empty
};

// A password of 24 random characters from an alphabet of 57 (about 140
// bits): what `chopar users add` prints when none is given.
std::string GeneratePassword();

}  // namespace chopar::console
