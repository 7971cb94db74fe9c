// Colocation by user id (docs/SCALING.md "Sharding by user id"): every
// statement chopar sends is listed with the tables it touches and
// classified. A statement on tables that carry user rows (a user_id column,
// or users itself) either touches one user's rows — a user_id condition on
// a parameter, a row id given as a parameter (the row carries its user), or
// an INSERT that writes user_id — or is on kShardLocal with the reason it
// may run on each shard over that shard's rows alone. A table without user
// rows is on kGlobalTables with the reason. Anything else fails, naming the
// statement's file: a new statement must say which it is.
//
// The check reads the statement's text (comments removed) with the
// relations of the migrated schema; it is per statement, not per table
// reference, so a statement that also scans another user table unkeyed
// must be listed. Run with --gtest_filter=*Colocation* to see the listing.

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "statement_list.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

// Which users' rows each statement touches.
class StatementColocationTest : public testing::PgTest {};

struct Listed {
  const char* name;  // the file's name without .sql (they are unique across areas)
  const char* reason;
};

// Tables without user rows: where they live when user tables are sharded.
const std::map<std::string, std::string> kGlobalTables = {
    {"templates", "configuration: small, written by operators; copied to every shard"},
    {"templates_api", "the view of templates"},
    {"template_versions",
     "the versions of templates, layouts and partials: configuration history, small, written by "
     "operators; copied to every shard"},
    {"template_drafts",
     "the drafts of templates, layouts and partials: configuration, small, written by operators; "
     "copied to every shard"},
    {"tenant_templates",
     "tenants' own templates: configuration, small, written by operators; copied to every "
     "shard"},
    {"layouts",
     "email layouts, global or a tenant's own: configuration, small, written by operators; "
     "copied to every shard"},
    {"partials",
     "Mustache partials, global or a tenant's own: configuration, small, written by operators; "
     "copied to every shard"},
    {"tenants",
     "the tenants with their branding and default preferences: a few rows, written by "
     "admins; copied to every shard"},
    {"api_keys",
     "the API keys (their digests) and scopes: a few rows, written by admins; copied to every "
     "shard"},
    {"audit_log",
     "who changed what: written by the triggers of the shard where the change is; a global "
     "view reads every shard's"},
    {"console_accounts", "the console's accounts: a few rows, written by admins"},
    {"console_sessions", "the console's sessions: one row per sign-in, keyed by the token"},
    {"console_sign_in_failures",
     "sign-in throttling windows, keyed by email or client address: a few rows, global"},
    {"provider_tokens", "one provider login token shared by every worker"},
    {"generated_secrets", "the secrets every process of a deployment shares: one row each"},
    {"telegram_poll_state", "the one Telegram getUpdates offset"},
    {"slack_workspaces",
     "the workspaces that installed the Slack app and their sealed bot tokens: a few rows, "
     "written by an install; copied to every shard"},
    {"report_jobs", "the reports' schedule state: one row per configured job"},
    {"suppressions",
     "suppressed addresses (hard bounces): an address is nobody's in particular; a few rows, "
     "copied to every shard"},
    {"report_runs", "one row per report run: global, a few a day"},
    {"inbox", "the outbox consumers' dedup table of the application's own database"},
    {"schema_migrations", "migrations: each shard has its own"},
    {"topics", "topic names: small, written by the application; copied to every shard"},
    {"broadcasts",
     "one row per broadcast call; sharded, each shard fans out over its own "
     "subscribers with its own cursor row"},
};

// Statements on user tables that are not keyed by one user: each runs on
// every shard over that shard's rows (the loops and the operators' views),
// or is keyed by something other than the user id.
const std::vector<Listed> kShardLocal = {
    {"claim_candidates",
     "the worker's claim: each shard's worker claims its own queue; the joins "
     "follow the delivery's notification and user, colocated with it"},
    {"record_outcomes",
     "by the delivery ids of its parameter (through a CTE the check does not "
     "follow): the outcomes of this shard's claims"},
    {"record_email_receipt",
     "by the email provider's message id of a receipt webhook, which names no user: run on "
     "every shard, or keep a message id → shard map"},
    {"sms_record_report",
     "by the SMS provider's message id of a delivery report, which "
     "names no user: run on every shard, or keep a message id → shard map"},
    {"next_wakeup", "the worker's next due time: per shard"},
    {"claim_erasure",
     "the erasure loop's claim of a pending erasure: each shard's loop erases its own users"},
    {"whatsapp_record_statuses",
     "by WhatsApp's message ids of a status webhook, which names no user: run on every "
     "shard, or keep a message id → shard map"},
    {"queue_depth", "the queue depth gauge: per shard, summed by the metrics scraper"},
    {"claim_due_schedules",
     "the scheduler's claim: each shard's scheduler fires its own "
     "schedules; the join to users follows the schedule's user_id"},
    {"next_due", "the scheduler's next due time: per shard"},
    {"record_firings", "by schedule keys the claim on this shard returned"},
    {"set_next_fire", "by schedule keys of one user's time zone change (the caller's user)"},
    {"delete_schedule",
     "by schedule key: sharded, the key must route (schedules.key is unique "
     "across users; prefix it with the user or keep a key → user map)"},
    {"get_schedule", "by schedule key, as delete_schedule"},
    {"telegram_find_link_token",
     "by the link token from the Telegram /start message: the "
     "token must route (it is created for one user)"},
    {"telegram_set_chat_active",
     "by Telegram chat id from the bot's updates: run on every "
     "shard (a chat is one user's; the update names no user)"},
    {"overview", "the console's queue overview: per shard, summed"},
    {"deliveries_per_minute", "the console's chart: per shard, summed"},
    {"list_user_ids", "the console's user directory, paged by id: per shard, merged"},
    {"admin_ids", "the reports' recipients (admins): per shard, merged"},
    {"summary_stats", "the reports' period statistics: per shard, merged"},
    {"anomaly_metrics", "the reports' anomaly figures: per shard, merged"},
    {"claim_events", "the relay's claim of outbox events: each shard's relay"},
    {"delete_dispatched", "outbox retention: per shard"},
    {"delete_dropped_digest_items",
     "notification retention: per shard, the items of each shard's closed digests"},
    {"delete_expired_dedup_keys",
     "notification retention: per shard, the dedup keys of the notifications it dropped"},
    {"delete_dropped_action_presses",
     "notification retention: per shard, the action presses of the notifications it dropped"},
    {"mark_failed", "by outbox rows the relay claimed on this shard"},
    {"pending_stats", "outbox gauges: per shard"},
    {"retained_stats", "outbox gauges: per shard"},
    {"install_checks", "`chopar outbox install`: schema checks, per database"},
    {"grant_app_role", "`chopar outbox install`: grants, per database"},
    {"grant_relay_role", "`chopar outbox install`: grants, per database"},
    {"claim_delayed", "the releaser's claim of due delayed notifications: per shard"},
    {"lock_workflow_runs", "the step advancer's claim of due workflow runs: per shard"},
    {"next_workflow_run", "the step advancer's next due time: per shard"},
    {"delete_dropped_workflow_runs",
     "notification retention: per shard, the workflow runs of the notifications it dropped"},
    {"next_delayed", "the releaser's next due time: per shard"},
    {"return_snoozed", "the snooze returner's claim of ended snoozes: per shard"},
    {"next_snoozed", "the snooze returner's next end of a snooze: per shard"},
    {"claim_digests", "the digest closer's claim of due windows: per shard"},
    {"next_digest", "the digest closer's next due time: per shard"},
    {"digest_contents",
     "by the digest windows the closer claimed on this shard; the items "
     "follow their window's user"},
    {"topic_recipients",
     "a broadcast's next batch of subscribers after its cursor: per shard, "
     "over that shard's subscribers"},
    {"all_recipients", "an \"audience\": \"all\" broadcast's next batch of users: per shard"},
    {"stop_delayed_batch",
     "a canceled broadcast's next batch of recipients (their dedup keys) after its cancel "
     "cursor: per shard, over that shard's recipients"},
    {"list_subscribers", "a topic's subscribers, paged by user id: per shard, merged"},
};

std::string WithoutComments(const std::string& sql) {
  return std::regex_replace(sql, std::regex("--[^\n]*"), "");
}

// Why the statement touches one user's rows ("" when it does not show it).
std::string OneUsersRows(const std::string& sql, const std::set<std::string>& user_tables) {
  const auto icase = std::regex::icase;
  // Aliases of parameter arrays: unnest($1, $2) AS x(...), jsonb_to_recordset($1) AS x(...).
  std::string params = R"(\$\d)";
  const std::regex alias(
      R"((unnest|jsonb_to_recordset)\s*\(\s*\$[^)]*\)\s*(WITH ORDINALITY\s*)?(AS\s+)?(\w+)\s*\()",
      icase);
  for (std::sregex_iterator it(sql.begin(), sql.end(), alias), end; it != end; ++it)
    params += "|\\b" + (*it)[4].str() + R"(\.\w+)";
  const std::string value = R"(\s*(=\s*(ANY\s*\(\s*)?|IN\s*\(\s*)()" + params + ")";
  if (std::regex_search(sql, std::regex(R"(\buser_id)" + value, icase))) return "user_id";
  if (std::regex_search(sql, std::regex(R"(\b(id|notification_id|delivery_id))" + value, icase)))
    return "row id";
  const std::regex insert(R"(INSERT\s+INTO\s+chopar\.(\w+)\s*(AS\s+\w+\s*)?\(([^)]*)\))", icase);
  for (std::sregex_iterator it(sql.begin(), sql.end(), insert), end; it != end; ++it) {
    const std::string table = (*it)[1], columns = (*it)[3];
    if (!user_tables.contains(table)) continue;
    const char* key = table == "users" ? R"(\bid\b)" : R"(\buser_id\b)";
    if (std::regex_search(columns, std::regex(key))) return "insert with its user";
  }
  return "";
}

TEST_F(StatementColocationTest, EveryStatementTouchesOneUsersRowsOrIsListedWithItsReason) {
  // The schema's relations, and which carry user rows.
  std::map<std::string, bool> relations;
  auto conn = db_->Connect();
  const auto rows = conn.ExecText(R"(
    SELECT c.relname, bool_or(a.attname = 'user_id') OR c.relname = 'users' AS user_rows
    FROM pg_class c
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE c.relnamespace = 'chopar'::regnamespace AND c.relkind IN ('r', 'v', 'p', 'm')
    GROUP BY c.relname)",
                                  {});
  std::set<std::string> user_tables;
  for (int i = 0; i < rows.Rows(); ++i) {
    const std::string relation(rows.Text(i, "relname"));
    relations[relation] = rows.Bool(i, "user_rows");
    if (rows.Bool(i, "user_rows")) user_tables.insert(relation);
  }
  ASSERT_TRUE(user_tables.contains("deliveries"));
  for (const auto& [table, reason] : kGlobalTables) {
    EXPECT_FALSE(user_tables.contains(table)) << table << " carries user rows: not global";
  }
  std::map<std::string, std::string> shard_local;
  for (const auto& listed : kShardLocal) shard_local[listed.name] = listed.reason;

  std::set<std::string> used_listing;
  for (const auto& statement : app::AllStatements()) {
    const std::string sql = WithoutComments(statement.query->sql);
    std::string name = statement.query->name;  // "<area>.<file>"
    name = name.substr(name.rfind('.') + 1);
    std::set<std::string> tables, users;
    const std::regex qualified(R"(chopar\.(\w+))");
    for (std::sregex_iterator it(sql.begin(), sql.end(), qualified), end; it != end; ++it) {
      const std::string table = (*it)[1];
      if (!relations.contains(table)) continue;  // a function: chopar.api_time(...)
      tables.insert(table);
      if (relations[table]) users.insert(table);
    }
    std::string verdict;
    if (users.empty()) {
      verdict = tables.empty() ? "no table" : "global tables";
      for (const auto& table : tables) {
        EXPECT_TRUE(kGlobalTables.contains(table))
            << statement.file << " reads table " << table
            << ", which carries no user rows and is not in kGlobalTables: add it with the reason";
      }
    } else if (const std::string why = OneUsersRows(sql, user_tables); !why.empty()) {
      verdict = "one user: " + why;
      EXPECT_FALSE(shard_local.contains(name))
          << statement.file << " touches one user's rows: remove it from kShardLocal";
    } else if (shard_local.contains(name)) {
      verdict = "per shard: " + shard_local[name];
      used_listing.insert(name);
    } else {
      ADD_FAILURE() << statement.file << " touches user tables without a user_id or row id "
                    << "condition on a parameter: key it by user, or add it to kShardLocal "
                    << "with the reason it is colocated";
    }
    std::string list;
    for (const auto& table : tables) list += (list.empty() ? "" : ", ") + table;
    std::cout << statement.file << " [" << list << "] " << verdict << "\n";
  }
  for (const auto& listed : kShardLocal) {
    EXPECT_TRUE(used_listing.contains(listed.name))
        << listed.name << " is in kShardLocal but is not such a statement (or gone)";
  }
}

}  // namespace
}  // namespace chopar
