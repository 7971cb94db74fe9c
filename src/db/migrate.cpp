#include "db/migrate.hpp"

#include <spdlog/spdlog.h>

#include <cctype>
#include <functional>
#include <set>
#include <thread>

#include "core/text.hpp"
#include "db/actor.hpp"
#include "db/errors.hpp"
#include "db/migrations_embedded.hpp"

namespace chopar::db {
namespace {

// Arbitrary constant shared by every chopar process: "chopar" in ASCII.
constexpr const char* kMigrationLockKey = "109300197384562";
// How often a process waiting for another's migrations asks for the lock.
constexpr std::chrono::milliseconds kMigrationLockPoll{100};

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Where the text quoted from `begin` (at the opening `quote`) ends: the
// position after the closing quote (a doubled quote is part of the text; with
// `backslashes`, so is an escaped one), or the end of `s`.
std::size_t SkipQuoted(std::string_view s, std::size_t begin, char quote, bool backslashes) {
  for (std::size_t i = begin + 1; i < s.size(); ++i) {
    if (backslashes && s[i] == '\\') {
      ++i;
    } else if (s[i] == quote) {
      if (i + 1 < s.size() && s[i + 1] == quote) {
        ++i;
      } else {
        return i + 1;
      }
    }
  }
  return s.size();
}

// `s` at `begin` opens a dollar-quoted string ($$ or $tag$): its tag, else "".
std::string_view DollarTag(std::string_view s, std::size_t begin) {
  if (begin > 0 && IsIdentifierChar(s[begin - 1])) return {};  // part of a name
  std::size_t end = begin + 1;
  if (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end])) != 0) return {};  // $1
  while (end < s.size() && IsIdentifierChar(s[end])) ++end;
  if (end >= s.size() || s[end] != '$') return {};
  return s.substr(begin, end - begin + 1);
}

// Where the comment from `begin` ends (after it). Block comments nest.
std::size_t SkipComment(std::string_view s, std::size_t begin) {
  if (s[begin] == '-') {
    const std::size_t end = s.find('\n', begin);
    return end == std::string_view::npos ? s.size() : end + 1;
  }
  int depth = 0;
  for (std::size_t i = begin; i + 1 < s.size(); ++i) {
    if (s[i] == '/' && s[i + 1] == '*') {
      ++depth;
      ++i;
    } else if (s[i] == '*' && s[i + 1] == '/') {
      ++i;
      if (--depth == 0) return i + 1;
    }
  }
  return s.size();
}

std::string Trimmed(std::string_view text) { return std::string(core::TrimWhitespace(text)); }

bool NeedsNoTransaction(const Migration& migration) {
  return std::string_view(migration.sql).starts_with(kNoTransactionMarker);
}

// Runs one migration and records it: in one transaction, or statement by
// statement for a no-transaction one.
void Apply(Connection& conn, const Migration& migration) {
  const Params record(migration.version, migration.name);
  constexpr const char* kRecord =
      "INSERT INTO chopar.schema_migrations (version, name) VALUES ($1, $2)";
  if (NeedsNoTransaction(migration)) {
    for (const std::string& statement : SplitSqlStatements(migration.sql))
      conn.ExecScript(statement);
    conn.ExecText(kRecord, record);
    return;
  }
  conn.ExecScript("BEGIN");
  try {
    conn.ExecScript(migration.sql);
    conn.ExecText(kRecord, record);
    conn.ExecScript("COMMIT");
  } catch (...) {
    if (!conn.IsBroken()) conn.ExecScript("ROLLBACK");
    throw;
  }
}

// Apply(), again after `options.pause` while its locks are not granted in
// time, up to `options.tries` times.
void ApplyWaitingForLocks(Connection& conn, const Migration& migration,
                          const MigrateOptions& options) {
  for (int attempt = 1;; ++attempt) {
    try {
      Apply(conn, migration);
      return;
    } catch (const LockNotAvailable& e) {
      if (attempt >= options.tries) {
        throw LockNotAvailable(
            e.sqlstate(),
            "migration " + std::string(migration.name) + " could not take its locks within " +
                std::to_string(options.lock_timeout.count()) + " ms in " + std::to_string(attempt) +
                " tries (a long transaction holds a table it changes; end it and start again): " +
                e.what());
      }
      spdlog::warn(
          "migration {}: a lock was not granted within {} ms (try {} of {}); again in {} ms",
          migration.name, options.lock_timeout.count(), attempt, options.tries,
          options.pause.count());
      std::this_thread::sleep_for(options.pause);
    }
  }
}

}  // namespace

std::span<const Migration> EmbeddedMigrations() { return kMigrations; }

std::vector<std::string> SplitSqlStatements(std::string_view s) {
  std::vector<std::string> statements;
  std::size_t start = 0;
  bool has_code = false;
  auto finish = [&](std::size_t end) {
    if (has_code) statements.push_back(Trimmed(s.substr(start, end - start)));
    start = end + 1;
    has_code = false;
  };
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    if ((c == '-' && next == '-') || (c == '/' && next == '*')) {
      i = SkipComment(s, i);
      continue;
    }
    if (c == ';') {
      finish(i);
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) == 0) has_code = true;
    if (c == '\'') {
      // E'…' strings take backslash escapes.
      const bool escapes =
          i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') && (i < 2 || !IsIdentifierChar(s[i - 2]));
      i = SkipQuoted(s, i, '\'', escapes);
    } else if (c == '"') {
      i = SkipQuoted(s, i, '"', false);
    } else if (const std::string_view tag = c == '$' ? DollarTag(s, i) : std::string_view();
               !tag.empty()) {
      const std::size_t close = s.find(tag, i + tag.size());
      i = close == std::string_view::npos ? s.size() : close + tag.size();
    } else {
      ++i;
    }
  }
  if (start < s.size()) finish(s.size());
  return statements;
}

int Migrate(Connection& conn, std::span<const Migration> migrations,
            const MigrateOptions& options) {
  // Migrations are not a caller's changes: no audit actor, and no
  // statement put in front of a migration's own (CREATE INDEX CONCURRENTLY
  // must run alone).
  const ActorScope no_actor("");
  // Waiting for another process's migrations has no limit; each lock a
  // migration itself takes does.
  conn.ExecScript("SET statement_timeout = 0; SET lock_timeout = 0");
  // Polled, not waited for in pg_advisory_lock: a session blocked there
  // holds a snapshot, and CREATE INDEX CONCURRENTLY in the holder's
  // migration waits for every older snapshot to end — a deadlock. Between
  // polls this session holds nothing.
  const std::string try_lock =
      std::string("SELECT pg_try_advisory_lock(") + kMigrationLockKey + ")";
  while (!conn.ExecText(try_lock, {}).Bool(0, 0)) std::this_thread::sleep_for(kMigrationLockPoll);
  int applied = 0;
  try {
    conn.ExecScript("SET lock_timeout = " + std::to_string(options.lock_timeout.count()));
    conn.ExecScript(
        "CREATE SCHEMA IF NOT EXISTS chopar;"
        "CREATE TABLE IF NOT EXISTS chopar.schema_migrations ("
        " version integer PRIMARY KEY, name text NOT NULL,"
        " applied_at timestamptz NOT NULL DEFAULT now())");
    // Every embedded migration not yet recorded, so a number filled in later
    // (or merged out of order) is still applied.
    const Result current = conn.ExecText("SELECT version FROM chopar.schema_migrations", {});
    std::set<std::int64_t> applied_versions;
    for (int row = 0; row < current.Rows(); ++row) applied_versions.insert(current.Int(row, 0));
    for (const Migration& migration : migrations) {
      if (applied_versions.contains(migration.version)) continue;
      spdlog::info("applying migration {}", migration.name);
      ApplyWaitingForLocks(conn, migration, options);
      ++applied;
    }
  } catch (...) {
    if (!conn.IsBroken()) {
      conn.ExecScript(std::string("SELECT pg_advisory_unlock(") + kMigrationLockKey +
                      "); RESET lock_timeout; RESET statement_timeout");
    }
    throw;
  }
  conn.ExecScript(std::string("SELECT pg_advisory_unlock(") + kMigrationLockKey +
                  "); RESET lock_timeout; RESET statement_timeout");
  return applied;
}

std::string MigrationsFingerprint() {
  std::size_t hash = 0;
  for (const Migration& migration : kMigrations) {
    hash = hash * 31 + std::hash<std::string_view>{}(migration.sql);
  }
  return std::to_string(hash % 1000000007);
}

}  // namespace chopar::db
