#include "console/accounts.hpp"

#include <sodium.h>

#include <algorithm>
#include <semaphore>
#include <stdexcept>
#include <thread>

#include "console/queries.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "core/text.hpp"
#include "db/errors.hpp"
#include "db/statement_time.hpp"
#include "db/time_column.hpp"

namespace chopar::console {
namespace {

constexpr std::size_t kMaxEmailBytes = 254;
constexpr std::size_t kMaxUserAgentBytes = 256;
constexpr std::size_t kMaxAddressBytes = 64;
constexpr std::size_t kTokenBytes = 32;

void InitSodium() {
  static const int result = sodium_init();
  if (result < 0) throw std::runtime_error("libsodium could not be initialised");
}

// An Argon2id hash holds 64 MiB (the INTERACTIVE memory limit) while it
// runs: at most one per core at once in a process, the others wait, so a
// burst of sign-ins costs time rather than memory.
class HashGate {
 public:
  HashGate() { Semaphore().acquire(); }
  ~HashGate() { Semaphore().release(); }
  HashGate(const HashGate&) = delete;
  HashGate& operator=(const HashGate&) = delete;

 private:
  static std::counting_semaphore<>& Semaphore() {
    static std::counting_semaphore<> semaphore(
        static_cast<std::ptrdiff_t>(std::max(2U, std::thread::hardware_concurrency())));
    return semaphore;
  }
};

std::string HashPassword(std::string_view password) {
  InitSodium();
  const HashGate gate;
  std::string hash(crypto_pwhash_STRBYTES, '\0');
  if (crypto_pwhash_str_alg(hash.data(), password.data(), password.size(),
                            crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE,
                            crypto_pwhash_ALG_ARGON2ID13) != 0) {
    throw std::runtime_error("crypto_pwhash_str_alg: out of memory");
  }
  hash.resize(hash.find('\0'));
  return hash;
}

bool VerifyPassword(const std::string& hash, std::string_view password) {
  InitSodium();
  const HashGate gate;
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

// What an unknown email's password is checked against, so that checking it
// costs what checking a real account's does.
const std::string& DummyHash() {
  static const std::string hash = HashPassword(core::RandomBytes(24));
  return hash;
}

std::string Truncated(std::string_view text, std::size_t bytes) {
  return std::string(text.substr(0, bytes));
}

std::string CheckedEmail(std::string_view email) {
  const std::string_view trimmed = core::TrimWhitespace(email);
  const auto at = trimmed.find('@');
  const bool blank_inside = std::any_of(trimmed.begin(), trimmed.end(),
                                        [](unsigned char c) { return c <= ' ' || c == 0x7f; });
  if (trimmed.size() < 3 || trimmed.size() > kMaxEmailBytes || at == std::string_view::npos ||
      at == 0 || at + 1 == trimmed.size() || blank_inside) {
    throw core::InvalidField("email", "email must be an email address of at most 254 bytes");
  }
  return std::string(trimmed);
}

void CheckPassword(std::string_view password) {
  if (password.size() < kMinPasswordBytes || password.size() > kMaxPasswordBytes) {
    throw core::InvalidField("password", "password must be 12 to 1024 bytes long");
  }
}

// The throttle's key of an email: what the unique index compares (lower
// case), cut to the column's length.
std::optional<std::string> EmailKey(std::string_view email) {
  const std::string key = Truncated(core::AsciiLower(core::TrimWhitespace(email)), kMaxEmailBytes);
  if (key.empty()) return std::nullopt;
  return key;
}

std::string AddressKey(std::string_view address) {
  return address.empty() ? std::string("unknown") : Truncated(address, kMaxAddressBytes);
}

Role RoleColumn(const db::Result& rows, int row, const char* column) {
  const auto role = ParseRole(rows.Text(row, column));
  if (!role) throw std::runtime_error("console account with an unknown role");
  return *role;
}

Account ReadAccount(const db::Result& rows, int row) {
  return {.id = rows.Int(row, "id"),
          .email = rows.String(row, "email"),
          .role = RoleColumn(rows, row, "role"),
          .created_at = db::TimeColumn(rows, row, "created_at"),
          .updated_at = db::TimeColumn(rows, row, "updated_at")};
}

// A row of resolve_console_session.sql or list_console_sessions.sql.
Session ReadSession(const db::Result& rows, int row) {
  Session session;
  session.id = rows.Int(row, "id");
  session.csrf_token = rows.String(row, "csrf_token");
  session.created_at = db::TimeColumn(rows, row, "created_at");
  session.last_seen_at = db::TimeColumn(rows, row, "last_seen_at");
  session.expires_at = db::TimeColumn(rows, row, "expires_at");
  session.address = rows.String(row, "address");
  session.user_agent = rows.String(row, "user_agent");
  if (!rows.IsNull(row, "account_id")) {
    session.account = Account{.id = rows.Int(row, "account_id"),
                              .email = rows.String(row, "email"),
                              .role = RoleColumn(rows, row, "role"),
                              .created_at = db::TimeColumn(rows, row, "account_created_at"),
                              .updated_at = db::TimeColumn(rows, row, "account_updated_at")};
  }
  return session;
}

SignInOutcome Refused(bool accounts_exist) {
  SignInOutcome outcome;
  outcome.kind = SignInOutcome::Kind::kRefused;
  outcome.accounts_exist = accounts_exist;
  return outcome;
}

std::string NewToken() { return core::Base64UrlEncode(core::RandomBytes(kTokenBytes)); }

std::string TokenHash(std::string_view token) { return core::HexEncode(core::Sha256(token)); }

double SecondsOf(std::chrono::seconds d) { return static_cast<double>(d.count()); }

// Refuses a change that would leave no admin: `id` is an admin now and is
// to be deleted or made something else. Locks the admins first.
void KeepAnAdmin(db::Transaction& tx, const Account& account) {
  if (account.role != Role::kAdmin) return;
  const auto admins = tx.Exec(queries::kLockConsoleAdmins);
  if (admins.Rows() <= 1) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "account " + std::to_string(account.id) +
                                 " is the last admin; make another account admin first");
  }
}

Account LockedAccount(db::Transaction& tx, std::int64_t id) {
  const auto rows = tx.Exec(queries::kGetConsoleAccount, id);
  if (rows.Empty()) {
    throw core::NotFound("console account " + std::to_string(id) + " does not exist");
  }
  return ReadAccount(rows, 0);
}

}  // namespace

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kViewer:
      return "viewer";
    case Role::kOperator:
      return "operator";
    case Role::kAdmin:
      return "admin";
  }
  return "viewer";
}

std::optional<Role> ParseRole(std::string_view name) {
  for (Role role : {Role::kViewer, Role::kOperator, Role::kAdmin}) {
    if (name == RoleName(role)) return role;
  }
  return std::nullopt;
}

AccountService::AccountService(db::Pool& pool, const core::Clock& clock, AccountSettings settings)
    : pool_(pool), clock_(clock), settings_(std::move(settings)) {
  InitSodium();
  // Made now, not by the first sign-in of an unknown email, which would
  // then take twice as long as one of a known email.
  DummyHash();
  if (!settings_.bootstrap_key.empty()) {
    bootstrap_key_hash_ = core::HexEncode(core::Sha256(settings_.bootstrap_key));
  }
}

Account AccountService::Add(const NewAccount& account) {
  const std::string email = CheckedEmail(account.email);
  CheckPassword(account.password);
  const std::string hash = HashPassword(account.password);
  try {
    const auto rows = pool_.Acquire()->Exec(queries::kInsertConsoleAccount, email,
                                            RoleName(account.role), hash, db::SqlNowParam(clock_));
    return ReadAccount(rows, 0);
  } catch (const db::UniqueViolation&) {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "a console account with the email " + email + " exists already",
                             "email");
  }
}

std::vector<Account> AccountService::List() {
  const auto rows = pool_.Acquire()->Exec(queries::kListConsoleAccounts);
  std::vector<Account> accounts;
  accounts.reserve(static_cast<std::size_t>(rows.Rows()));
  for (int row = 0; row < rows.Rows(); ++row) accounts.push_back(ReadAccount(rows, row));
  return accounts;
}

bool AccountService::AnyExists() {
  return pool_.Acquire()->Exec(queries::kAnyConsoleAccount).Bool(0, "any");
}

Account AccountService::ChangeRole(std::int64_t id, Role role) {
  auto tx = pool_.Begin("change_console_role");
  const Account account = LockedAccount(tx, id);
  if (role != Role::kAdmin) KeepAnAdmin(tx, account);
  const auto rows =
      tx.Exec(queries::kUpdateConsoleAccountRole, id, RoleName(role), db::SqlNowParam(clock_));
  tx.Commit();
  return ReadAccount(rows, 0);
}

void AccountService::Delete(std::int64_t id) {
  auto tx = pool_.Begin("delete_console_account");
  KeepAnAdmin(tx, LockedAccount(tx, id));
  tx.Exec(queries::kDeleteConsoleAccount, id);
  tx.Commit();
}

void AccountService::DeleteByEmail(std::string_view email) {
  const auto rows = pool_.Acquire()->Exec(queries::kFindConsoleAccount, std::string(email));
  if (rows.Empty()) {
    throw core::NotFound("no console account has the email " + std::string(email));
  }
  Delete(rows.Int(0, "id"));
}

std::optional<SignInOutcome> AccountService::CountAttempt(
    const std::optional<std::string>& email_key, const std::string& address) {
  auto tx = pool_.Begin("count_sign_in_attempt");
  const auto rows = tx.Exec(queries::kCountSignInAttempt, email_key, address,
                            db::SqlNowParam(clock_), SecondsOf(settings_.failure_window));
  std::optional<std::int64_t> wait;
  for (int row = 0; row < rows.Rows(); ++row) {
    const int limit = rows.Text(row, "kind") == "email" ? settings_.failures_per_email
                                                        : settings_.failures_per_address;
    if (rows.Int(row, "failures") > limit) {
      wait = std::max(wait.value_or(1), rows.Int(row, "seconds_left"));
    }
  }
  if (wait) {
    // Rolled back: an attempt refused unchecked counts nothing.
    return SignInOutcome{.kind = SignInOutcome::Kind::kThrottled,
                         .session = std::nullopt,
                         .retry_after = std::chrono::seconds(*wait)};
  }
  tx.Commit();
  return std::nullopt;
}

OpenedSession AccountService::OpenSession(std::optional<std::int64_t> account_id,
                                          const std::optional<std::string>& email_key,
                                          const std::string& address,
                                          const std::string& user_agent) {
  OpenedSession opened;
  opened.token = NewToken();
  Session& session = opened.session;
  session.csrf_token = NewToken();
  session.address = address;
  session.user_agent = Truncated(user_agent, kMaxUserAgentBytes);
  const auto now = db::SqlNowParam(clock_);
  auto tx = pool_.Begin("open_console_session");
  tx.Defer(queries::kTakeBackSignInAttempt, email_key, address);
  tx.Defer(queries::kDeleteOldConsoleSessions, now);
  const auto rows =
      tx.Exec(queries::kInsertConsoleSession, TokenHash(opened.token), session.csrf_token,
              account_id, account_id ? std::nullopt : std::optional(bootstrap_key_hash_), now,
              SecondsOf(settings_.session_lifetime), session.address, session.user_agent);
  if (rows.Empty()) {
    throw core::Unauthorized("a console account exists: sign in with an account");
  }
  tx.Commit();
  session.id = rows.Int(0, "id");
  session.created_at = db::TimeColumn(rows, 0, "created_at");
  session.last_seen_at = db::TimeColumn(rows, 0, "last_seen_at");
  session.expires_at = db::TimeColumn(rows, 0, "expires_at");
  return opened;
}

SignInOutcome AccountService::SignIn(const SignInAttempt& attempt) {
  const std::optional<std::string> email_key = EmailKey(attempt.email);
  const std::string address = AddressKey(attempt.address);
  if (auto throttled = CountAttempt(email_key, address)) return *throttled;

  std::optional<Account> account;
  std::string hash = DummyHash();
  if (email_key) {
    const auto rows = pool_.Acquire()->Exec(queries::kFindConsoleAccount, *email_key);
    if (!rows.Empty()) {
      account = ReadAccount(rows, 0);
      hash = rows.String(0, "password_hash");
    }
  }
  // Checked whether or not the account exists, so the answer takes as long.
  const bool matches = VerifyPassword(hash, attempt.password);
  if (!account || !matches) {
    pool_.Acquire()->Exec(queries::kForgetSignInFailures, db::SqlNowParam(clock_),
                          SecondsOf(settings_.failure_window));
    return Refused(false);
  }
  OpenedSession opened = OpenSession(account->id, email_key, address, attempt.user_agent);
  opened.session.account = std::move(account);
  return SignInOutcome{.kind = SignInOutcome::Kind::kSignedIn, .session = std::move(opened)};
}

SignInOutcome AccountService::SignInWithKey(std::string_view key, const std::string& address,
                                            const std::string& user_agent) {
  // Once an account exists the key is not even compared: the same answer
  // for every key.
  if (AnyExists()) {
    return Refused(true);
  }
  const std::string address_key = AddressKey(address);
  if (auto throttled = CountAttempt(std::nullopt, address_key)) return *throttled;
  const bool matches =
      !settings_.bootstrap_key.empty() &&
      core::ConstantTimeEquals(core::Sha256(key), core::Sha256(settings_.bootstrap_key));
  if (!matches) return Refused(false);
  try {
    return SignInOutcome{
        .kind = SignInOutcome::Kind::kSignedIn,
        .session = OpenSession(std::nullopt, std::nullopt, address_key, user_agent)};
  } catch (const core::RequestError&) {
    // The first account was added between the check and the session.
    return Refused(true);
  }
}

std::optional<Session> AccountService::Resolve(std::string_view token) {
  // A token is 32 bytes in unpadded base64url; anything else opens nothing
  // and costs no statement.
  if (token.size() != 43 || !core::Base64UrlDecode(token)) return std::nullopt;
  const auto rows = pool_.Acquire()->Exec(
      queries::kResolveConsoleSession, TokenHash(token), db::SqlNowParam(clock_),
      SecondsOf(settings_.touch_interval),
      bootstrap_key_hash_.empty() ? std::nullopt : std::optional(bootstrap_key_hash_));
  if (rows.Empty()) return std::nullopt;
  return ReadSession(rows, 0);
}

void AccountService::Revoke(std::int64_t session_id) {
  const auto rows =
      pool_.Acquire()->Exec(queries::kRevokeConsoleSession, session_id, db::SqlNowParam(clock_));
  if (rows.Empty()) {
    throw core::NotFound("console session " + std::to_string(session_id) + " does not exist");
  }
}

void AccountService::RevokeToken(std::string_view token) {
  pool_.Acquire()->Exec(queries::kRevokeConsoleSessionByToken, TokenHash(token),
                        db::SqlNowParam(clock_));
}

std::int64_t AccountService::RevokeAll(std::int64_t account_id) {
  return pool_.Acquire()
      ->Exec(queries::kRevokeConsoleAccountSessions, account_id, db::SqlNowParam(clock_))
      .AffectedRows();
}

std::vector<Session> AccountService::ListSessions(std::optional<std::int64_t> account_id) {
  const auto rows =
      pool_.Acquire()->Exec(queries::kListConsoleSessions, account_id, db::SqlNowParam(clock_));
  std::vector<Session> sessions;
  sessions.reserve(static_cast<std::size_t>(rows.Rows()));
  for (int row = 0; row < rows.Rows(); ++row) sessions.push_back(ReadSession(rows, row));
  return sessions;
}

std::string GeneratePassword() {
  // No 0/O, 1/l/I: a password read off a terminal is typed again.
  static constexpr std::string_view kAlphabet =
      "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  InitSodium();
  std::string password;
  for (int i = 0; i < 24; ++i) {
    password += kAlphabet[randombytes_uniform(static_cast<std::uint32_t>(kAlphabet.size()))];
  }
  return password;
}

}  // namespace chopar::console
