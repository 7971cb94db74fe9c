#include "db/connection.hpp"

#include <poll.h>

#include <optional>
#include <tuple>

#include "core/text.hpp"
#include "db/actor.hpp"
#include "db/errors.hpp"
#include "db/session_settings.hpp"

namespace chopar::db {
namespace {

std::string ErrorMessage(PGconn* conn) {
  std::string message = PQerrorMessage(conn);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

struct ParamPointers {
  std::vector<const char*> values;
  explicit ParamPointers(const Params& params) {
    values.reserve(params.values().size());
    for (const auto& value : params.values()) values.push_back(value ? value->c_str() : nullptr);
  }
};

// Sets the session's planning for a Plan (db/query.hpp), not LOCAL: a
// statement outside a transaction would lose it at once. $1: 'generic',
// 'custom' or 'auto' (PostgreSQL's defaults).
constexpr Query kSetPlanMode{
    "chopar.set_plan_mode",
    "SELECT set_config('plan_cache_mode', CASE $1::text WHEN 'generic' THEN 'force_generic_plan'"
    "                  WHEN 'custom' THEN 'force_custom_plan' ELSE 'auto' END, false),"
    "       set_config('enable_seqscan', CASE $1::text WHEN 'generic' THEN 'off' ELSE 'on' END, "
    "false),"
    "       set_config('enable_bitmapscan', CASE $1::text WHEN 'auto' THEN 'on' ELSE 'off' END,"
    "                  false),"
    "       set_config('enable_nestloop', CASE $1::text WHEN 'custom' THEN 'off' ELSE 'on' END,"
    "                  false)",
    Plan::kAny};

// The audit log's actor for the rest of the transaction (db/actor.hpp).
// LOCAL: a statement outside a transaction block runs in the implicit one of
// its pipeline, which ends at the pipeline's sync.
constexpr Query kSetActor{"chopar.set_actor",
                          "SELECT pg_catalog.set_config('chopar.actor', $1, true)", Plan::kAny};

bool IsSessionStatement(const Statement& statement) {
  return statement.query.name == std::string_view(kSetPlanMode.name) ||
         statement.query.name == std::string_view(kSetActor.name);
}

// `statements` with this thread's actor set first (after a BEGIN that
// opens them), or empty when the thread has none.
std::vector<Statement> WithActor(std::span<const Statement> statements) {
  const std::string& actor = CurrentActor();
  if (actor.empty()) return {};
  std::vector<Statement> sent(statements.begin(), statements.end());
  const bool opens = !sent.empty() && std::string_view(sent.front().query.sql) == "BEGIN";
  sent.insert(sent.begin() + (opens ? 1 : 0), Statement{kSetActor, Params(actor)});
  return sent;
}

Statement PlanSwitch(Plan plan) {
  const char* mode = plan == Plan::kGeneric ? "generic" : plan == Plan::kCustom ? "custom" : "auto";
  return {kSetPlanMode, Params(mode)};
}

bool Succeeded(const Result& result) {
  return result.Status() == PGRES_COMMAND_OK || result.Status() == PGRES_TUPLES_OK;
}

// Notices (a NOTICE from the server) are not chopar's concern; libpq would
// print them on stderr.
void IgnoreNotice(void*, const char*) {}

// A string literal for `value` (standard_conforming_strings is on).
std::string Literal(const std::string& value) {
  std::string literal = "'";
  for (char c : value) {
    if (c == '\'') literal += '\'';
    literal += c;
  }
  return literal + "'";
}

// What Connection::Begin sends: under a transaction-mode pooler the session
// cannot carry settings from one transaction to the next, so each
// transaction sets them for itself; `settings` come after the default
// statement timeout, so a statement_timeout among them wins.
std::string BeginScript(ServerPooling pooling, const ServerSettings& settings) {
  if (pooling == ServerPooling::kNone) return "BEGIN";
  const SessionSettings defaults;
  std::string script = "BEGIN; SET LOCAL jit = off; SET LOCAL statement_timeout = " +
                       std::to_string(defaults.statement_timeout.count() * 1000);
  for (const auto& [name, value] : settings) {
    script += "; SELECT set_config(" + Literal(name) + ", " + Literal(value) + ", true)";
  }
  return script;
}

}  // namespace

Connection Connection::Open(const std::string& conninfo, const ServerSettings& settings,
                            ServerPooling pooling) {
  // Options go in the startup packet so they hold before the first statement.
  // JIT is off: chopar's statements are short and touch a few rows each, yet
  // a plan whose cost estimate passes jit_above_cost (a claim of 500 rows
  // does) would spend 15-20 ms compiling before every execution. The
  // default limits come first, so `conninfo`'s own connect_timeout (an entry
  // before dbname) and its own options (appended after ours: a later -c
  // wins) override them. A pooler refuses options: see ServerPooling.
  const SessionSettings defaults;
  std::string options =
      "-c TimeZone=UTC -c search_path=chopar,public -c client_min_messages=warning "
      "-c jit=off -c statement_timeout=" +
      std::to_string(defaults.statement_timeout.count() * 1000);
  for (const auto& [name, value] : settings) {
    options += " -c " + name + "=";
    // libpq splits options at spaces unless escaped.
    for (char c : value) {
      if (c == ' ' || c == '\\') options += '\\';
      options += c;
    }
  }
  if (const std::string own = ConninfoValue(conninfo, "options"); !own.empty())
    options += " " + own;
  const bool direct = pooling == ServerPooling::kNone;
  const std::string connect_timeout = std::to_string(defaults.connect_timeout.count());
  const char* keys[] = {"connect_timeout",
                        "dbname",
                        "application_name",
                        "fallback_application_name",
                        direct ? "options" : nullptr,
                        nullptr};
  const char* values[] = {connect_timeout.c_str(), conninfo.c_str(), "chopar", "chopar",
                          options.c_str(),         nullptr};
  PGconn* raw = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (raw == nullptr) throw ConnectionError("", "out of memory connecting to PostgreSQL");
  Connection conn(raw, pooling, BeginScript(pooling, settings));
  if (PQstatus(raw) != CONNECTION_OK) {
    throw ConnectionError("", "cannot connect to PostgreSQL: " + ErrorMessage(raw));
  }
  PQsetNoticeProcessor(raw, IgnoreNotice, nullptr);
  // PgBouncer tracks TimeZone per client and sets it on the server session
  // before each of the client's transactions.
  if (!direct) conn.ExecScript("SET TimeZone = 'UTC'");
  return conn;
}

void Connection::Begin() { ExecScript(begin_); }

Result Connection::Check(PGresult* raw_result) {
  Result result(raw_result);
  const auto status = raw_result == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw_result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY) {
    return result;
  }
  // The failure ended the statement's implicit transaction, or doomed the
  // explicit one: a switch of the plan mode made in it may be undone.
  ForgetPlanMode();
  const char* state = raw_result ? PQresultErrorField(raw_result, PG_DIAG_SQLSTATE) : nullptr;
  // The primary message only: PostgreSQL's DETAIL quotes the row's values
  // ("Failing row contains (…)", "Key (email)=(…)") — addresses and message
  // bodies that must not reach logs or clients.
  const char* primary =
      raw_result ? PQresultErrorField(raw_result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  const std::string message =
      primary != nullptr && *primary ? std::string(primary) : ErrorMessage(conn_.get());
  if (state == nullptr && PQstatus(conn_.get()) != CONNECTION_OK) {
    throw ConnectionError("", "connection to PostgreSQL lost: " + message);
  }
  // A server going away (57P01 admin shutdown, 57P02 crash shutdown, 57P03
  // cannot connect now: what a restart or a demotion in a failover says
  // before it closes the session) or taking no writes (25006: a primary
  // made read-only for its demotion, or a standby now): the session is of
  // no more use even if libpq has not seen its end yet. The pool drops it.
  if (state != nullptr) {
    const std::string_view code(state);
    if (code.starts_with("57P") || code == "25006") poisoned_ = true;
    if (code == "25006") found_read_only_ = true;
  }
  ThrowForSqlState(state ? state : "", message);
}

void Connection::Prepare(const Query& query) {
  if (prepared_.contains(query.name)) return;
  ++round_trips_;
  Check(PQprepare(conn_.get(), query.name, query.sql, 0, nullptr));
  prepared_.insert(query.name);
}

Result Connection::Exec(const Query& query, const Params& params) {
  if (!CurrentActor().empty() || (pooling_ == ServerPooling::kNone && query.plan != Plan::kAny &&
                                  session_plan_ != query.plan)) {
    const Statement statement{query, params};
    return std::move(ExecPipeline(std::span(&statement, 1)).back());
  }
  if (pooling_ != ServerPooling::kNone) return ExecText(query.sql, params);
  Prepare(query);
  const ParamPointers pointers(params);
  ++round_trips_;
  return Check(PQexecPrepared(conn_.get(), query.name, static_cast<int>(pointers.values.size()),
                              pointers.values.data(), nullptr, nullptr, 0));
}

std::pair<std::vector<Statement>, Plan> Connection::WithPlanSwitches(
    std::span<const Statement> statements) const {
  std::vector<Statement> sent;
  sent.reserve(statements.size() + 1);
  std::optional<Plan> plan = session_plan_;
  for (const Statement& statement : statements) {
    const Plan wanted = statement.query.plan;
    if (wanted != Plan::kAny && plan != wanted) {
      sent.push_back(PlanSwitch(wanted));
      plan = wanted;
    }
    sent.push_back(statement);
  }
  return {std::move(sent), plan.value_or(Plan::kAuto)};
}

bool Connection::SendInPipeline(const Statement& statement) {
  const ParamPointers pointers(statement.params);
  const int count = static_cast<int>(pointers.values.size());
  if (pooling_ != ServerPooling::kNone) {
    return PQsendQueryParams(conn_.get(), statement.query.sql, count, nullptr,
                             pointers.values.data(), nullptr, nullptr, 0) == 1;
  }
  return PQsendQueryPrepared(conn_.get(), statement.query.name, count, pointers.values.data(),
                             nullptr, nullptr, 0) == 1;
}

std::vector<Result> Connection::ExecPipeline(std::span<const Statement> statements) {
  const std::vector<Statement> with_actor = WithActor(statements);
  const std::span<const Statement> given =
      with_actor.empty() ? statements : std::span<const Statement>(with_actor);
  std::vector<Statement> sent;
  std::optional<Plan> plan_after;
  if (pooling_ == ServerPooling::kNone) {
    std::tie(sent, plan_after) = WithPlanSwitches(given);
  } else if (!with_actor.empty()) {
    sent = with_actor;
  }
  // Nothing added: the callers' statements as they are, copied nowhere.
  if (sent.size() <= statements.size()) return ExecPipelineAsGiven(statements);
  // A failure forgets the plan mode (Check), a broken pipeline the connection.
  std::vector<Result> results = ExecPipelineAsGiven(sent);
  if (plan_after) session_plan_ = *plan_after;
  // The callers' statements' results only, in their order.
  std::vector<Result> theirs;
  theirs.reserve(statements.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!IsSessionStatement(sent[i])) theirs.push_back(std::move(results[i]));
  }
  return theirs;
}

std::vector<Result> Connection::ExecPipelineAsGiven(std::span<const Statement> statements) {
  if (pooling_ == ServerPooling::kNone) {
    for (const Statement& statement : statements) Prepare(statement.query);
  }
  PGconn* conn = conn_.get();
  if (PQenterPipelineMode(conn) != 1) {
    throw ConnectionError("", "cannot enter pipeline mode: " + ErrorMessage(conn));
  }
  for (const Statement& statement : statements) {
    if (!SendInPipeline(statement)) {
      poisoned_ = true;
      throw ConnectionError(
          "", "cannot send " + std::string(statement.query.name) + ": " + ErrorMessage(conn));
    }
  }
  if (PQpipelineSync(conn) != 1) {
    poisoned_ = true;
    throw ConnectionError("", "cannot send a pipeline: " + ErrorMessage(conn));
  }
  ++round_trips_;
  auto results = ReadPipelineResults(statements.size());
  if (PQexitPipelineMode(conn) != 1) {
    poisoned_ = true;
    throw ConnectionError("", "cannot leave pipeline mode: " + ErrorMessage(conn));
  }
  // A failed statement's result is the last one kept; Check throws its error.
  if (!results.empty() && !Succeeded(results.back())) Check(results.back().Release());
  return results;
}

// One result per statement, each followed by libpq's end-of-query marker,
// then the sync that closes the pipeline. After a failure the server skips
// the rest (PGRES_PIPELINE_ABORTED) up to the sync; the results kept end
// with the failed one.
std::vector<Result> Connection::ReadPipelineResults(std::size_t count) {
  PGconn* conn = conn_.get();
  auto lost = [&](const char* what) {
    poisoned_ = true;
    return ConnectionError(
        "", std::string("pipeline to PostgreSQL broken: ") + what + ": " + ErrorMessage(conn));
  };
  std::vector<Result> results;
  results.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    PGresult* raw = PQgetResult(conn);
    if (raw == nullptr) throw lost("missing result");
    Result result(raw);
    if (PGresult* extra = PQgetResult(conn)) {
      PQclear(extra);
      throw lost("more than one result for a statement");
    }
    if (results.empty() || Succeeded(results.back())) results.push_back(std::move(result));
  }
  Result sync(PQgetResult(conn));
  if (sync.Status() != PGRES_PIPELINE_SYNC) throw lost("missing sync");
  return results;
}

Result Connection::ExecText(std::string_view sql, const Params& params) {
  ForgetPlanModeOnRollback(sql);
  const ParamPointers pointers(params);
  const std::string text(sql);
  ++round_trips_;
  return Check(PQexecParams(conn_.get(), text.c_str(), static_cast<int>(pointers.values.size()),
                            nullptr, pointers.values.data(), nullptr, nullptr, 0));
}

void Connection::ExecScript(std::string_view sql) {
  ForgetPlanModeOnRollback(sql);
  ++round_trips_;
  Check(PQexec(conn_.get(), std::string(sql).c_str()));
}

void Connection::ForgetPlanModeOnRollback(std::string_view sql) {
  // ROLLBACK, ROLLBACK TO SAVEPOINT, ABORT: each may undo a switch of the
  // plan mode made in the transaction. Any other text keeps it; a failure
  // forgets it in Check.
  if (core::ContainsIgnoringCase(sql, "rollback") || core::ContainsIgnoringCase(sql, "abort"))
    ForgetPlanMode();
}

void Connection::Listen(std::string_view channel) {
  char* quoted = PQescapeIdentifier(conn_.get(), channel.data(), channel.size());
  if (quoted == nullptr) throw DbError("", ErrorMessage(conn_.get()));
  const std::string sql = std::string("LISTEN ") + quoted;
  PQfreemem(quoted);
  ExecScript(sql);
}

std::vector<Notification> Connection::DrainNotifications() {
  std::vector<Notification> out;
  while (PGnotify* notify = PQnotifies(conn_.get())) {
    out.push_back({notify->relname, notify->extra ? notify->extra : ""});
    PQfreemem(notify);
  }
  return out;
}

std::vector<Notification> Connection::WaitForNotifications(std::chrono::milliseconds timeout) {
  if (PQconsumeInput(conn_.get()) == 0) {
    throw ConnectionError("", "connection to PostgreSQL lost: " + ErrorMessage(conn_.get()));
  }
  auto pending = DrainNotifications();
  if (!pending.empty()) return pending;
  pollfd fd{PQsocket(conn_.get()), POLLIN, 0};
  if (fd.fd < 0) throw ConnectionError("", "connection to PostgreSQL has no socket");
  if (poll(&fd, 1, static_cast<int>(timeout.count())) > 0) {
    if (PQconsumeInput(conn_.get()) == 0) {
      throw ConnectionError("", "connection to PostgreSQL lost: " + ErrorMessage(conn_.get()));
    }
  }
  return DrainNotifications();
}

bool Connection::LooksAlive() {
  PGconn* conn = conn_.get();
  // A server that closed an idle connection left its last words (a FATAL
  // message) and then the end of the stream on the socket: read what is
  // there until nothing more is, without waiting. Reading the end marks the
  // connection bad.
  for (int reads = 0; reads < 4 && !IsBroken(); ++reads) {
    pollfd fd{PQsocket(conn), POLLIN, 0};
    if (fd.fd < 0) return false;
    if (poll(&fd, 1, 0) <= 0) break;
    if (PQconsumeInput(conn) == 0) return false;
  }
  return !IsBroken();
}

bool Connection::IsBroken() const { return poisoned_ || PQstatus(conn_.get()) != CONNECTION_OK; }

}  // namespace chopar::db
