#!/usr/bin/env bash
# Where PostgreSQL's time goes on the notify path: one notify_bench run under
# pg_stat_statements, then a table per database — chopar's and the raw-SQL
# ceiling's — of every statement with its calls, rows, total and mean time
# and its share of that database's time, per 1,000 notifications
# (docs/BENCHMARKS.md "Where PostgreSQL's time goes").
#
#   bash bench/statements.sh [notify_bench options]
#   BUILD_DIR=<dir> SKIP_BUILD=1 bash bench/statements.sh --notifications 50000
#
# CHOPAR=<binary> measures another chopar binary with this build's bench.
# TOP (default 14) rows per table. Each raw ceiling runs twice, chopar once:
# each table is divided by its own number of notifications.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
chopar=${CHOPAR:-$build_dir/chopar}
top=${TOP:-14}

source bench/notify_bench_lib.sh
rerun_under_test_pg_with_statements "$@"

sql() { psql "$CHOPAR_TEST_DATABASE_URL" -X -q -v ON_ERROR_STOP=1 "$@"; }
log=$(mktemp /tmp/chopar-statements.XXXXXX.log)
sql -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' >/dev/null
sql -c 'SELECT pg_stat_statements_reset()' >/dev/null
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); chopar: $chopar; log: $log"
"$build_dir/bench/notify_bench" --chopar "$chopar" --keep-databases "$@" >"$log" 2>&1 ||
  { tail -20 "$log" >&2; exit 1; }
sed -n '/^Summary/,$p' "$log"

databases=$(sql -At -c "SELECT datname FROM pg_database WHERE datname LIKE 'notify_bench_%' ORDER BY datname")
for db in $databases; do
  notifications=$(psql "${CHOPAR_TEST_DATABASE_URL/\/postgres?//$db?}" -X -At -c \
    "SELECT count(*) FROM chopar.notifications")
  # The raw database ran both ceilings, plain and work-matched, two rounds
  # each; the table holds the last round. Each statement belongs to one
  # ceiling, so per 1,000 of that ceiling's notifications; the total adds both.
  [[ $db == *_raw ]] && what="raw-SQL ceilings, plain and work-matched (two rounds each; the total adds both)" || what="chopar"
  [[ $db == *_raw ]] && notifications=$((notifications * 2))
  echo
  echo "== $what: database $db, $notifications notifications; ms and rows per 1,000 notifications"
  sql -F ' | ' -A -c "
    WITH s AS (
      SELECT calls, plans, rows, total_exec_time, total_plan_time,
             shared_blks_hit + shared_blks_read AS blocks,
             regexp_replace(regexp_replace(query, '--[^\n]*', '', 'g'), '\s+', ' ', 'g') AS text
      FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db'))
    SELECT round(1000.0 * calls / $notifications, 1) AS calls,
           round(1000.0 * rows / $notifications) AS rows,
           round((1000 * total_exec_time / $notifications)::numeric, 2) AS exec_ms,
           round(1000.0 * plans / $notifications, 1) AS plans,
           round((1000 * total_plan_time / $notifications)::numeric, 2) AS plan_ms,
           round((100 * (total_exec_time + total_plan_time)
                  / sum(total_exec_time + total_plan_time) OVER ())::numeric, 1) AS share,
           round(1000.0 * blocks / $notifications) AS blocks,
           left(text, 110) AS statement
    FROM s ORDER BY total_exec_time + total_plan_time DESC LIMIT $top"
  sql -At -c "
    SELECT 'total: ' || round((1000 * sum(total_exec_time) / $notifications)::numeric, 2) ||
           ' ms executing and ' || round((1000 * sum(total_plan_time) / $notifications)::numeric, 2) ||
           ' ms planning per 1,000 notifications, in ' || sum(calls) || ' calls'
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db')"
  sql -c "DROP DATABASE $db WITH (FORCE)" >/dev/null
done
