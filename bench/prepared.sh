#!/usr/bin/env bash
# What unnamed statements cost ([database] prepared_statements = false, for
# PgBouncer in transaction mode; docs/BENCHMARKS.md "Unnamed statements"):
# notify_bench against one throwaway PostgreSQL in interleaved rounds of
#   named     prepared_statements = true, directly (the default);
#   unnamed   prepared_statements = false, directly: the statements' cost alone;
#   bouncer   prepared_statements = false through PgBouncer 1.18 in
#             transaction mode (LISTEN and migrations on listen_url, direct),
# the order rotating from round to round, and each variant's figures as a
# share of `named` in the same round at the end.
#
#   bash bench/prepared.sh [notify_bench options, e.g. --notifications 50000]
#
# ROUNDS (default 2); BUILD_DIR the build folder (default build);
# SKIP_BUILD=1 uses the binaries already there; LOGS=<dir> keeps the logs.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
rounds=${ROUNDS:-2}

source bench/notify_bench_lib.sh
rerun_under_test_pg_with_statements "$@"
chopar=$(realpath "$build_dir/chopar")
logs=${LOGS:-$(mktemp -d /tmp/chopar-prepared-bench.XXXXXX)}
mkdir -p "$logs"
work=$(mktemp -d)
socket_dir=$(sed -E 's/.*[?&]host=([^&]*).*/\1/' <<<"$CHOPAR_TEST_DATABASE_URL")

# PgBouncer as the black-box test starts it (tests/support/pgbouncer.cpp).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/pgbouncer.ini" <<INI
[databases]
* = host=$socket_dir user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
INI
as_pg=()
[ "$(id -u)" -eq 0 ] && { chown -R postgres: "$work"; as_pg=(-u postgres); }
/usr/sbin/pgbouncer "${as_pg[@]}" "$work/pgbouncer.ini" >"$logs/pgbouncer.log" 2>&1 &
bouncer=$!
trap 'kill -INT $bouncer 2>/dev/null; wait $bouncer 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  psql -Xq "postgresql://postgres@127.0.0.1:$port/postgres" -c 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.2
done

# notify_bench starts `<chopar> serve` with CHOPAR_DATABASE_URL set to its
# database: this wrapper sends it through PgBouncer, LISTEN and migrations
# directly.
cat >"$work/chopar-via-bouncer" <<WRAPPER
#!/bin/bash
direct=\$CHOPAR_DATABASE_URL
database=\$(sed -E 's|^postgresql://[^/]*/([^?]*).*|\1|' <<<"\$direct")
export CHOPAR_DATABASE_LISTEN_URL=\$direct
export CHOPAR_DATABASE_URL="postgresql://postgres@127.0.0.1:$port/\$database"
exec "$chopar" "\$@"
WRAPPER
chmod +x "$work/chopar-via-bouncer"

echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); logs in $logs"
server=$CHOPAR_TEST_DATABASE_URL
sql() { psql -X -q -v ON_ERROR_STOP=1 -At "$server" "$@"; }
sql -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements'

# Where PostgreSQL's time and WAL went in chopar's database (not the raw
# ceiling's) during one run: the statements by time, with the WAL they wrote.
statements() {
  sql -F ' | ' -c "
    SELECT calls, round(total_exec_time::numeric) AS total_ms, wal_bytes,
           left(regexp_replace(regexp_replace(query, '--[^\n]*', '', 'g'), '\s+', ' ', 'g'), 80)
    FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$1')
    ORDER BY total_exec_time DESC LIMIT 10"
  sql -F ' ' -c "
    SELECT 'chopar database: statements ' || round(sum(total_exec_time)::numeric) || ' ms, WAL '
           || sum(wal_bytes) || ' bytes' FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$1')"
}
variants=(named unnamed bouncer)
for ((round = 1; round <= rounds; round++)); do
  for ((i = 0; i < 3; i++)); do
    variant=${variants[$(((i + round - 1) % 3))]}
    binary=$chopar prepared=true
    [ "$variant" != named ] && prepared=false
    [ "$variant" = bouncer ] && binary="$work/chopar-via-bouncer"
    echo "round $round: $variant (load $(cut -d' ' -f1 /proc/loadavg))"
    sql -c 'SELECT pg_stat_statements_reset()' >/dev/null
    CHOPAR_DATABASE_PREPARED_STATEMENTS=$prepared "$build_dir/bench/notify_bench" \
      --chopar "$binary" --keep-databases "$@" >"$logs/$round-$variant.log" 2>&1 ||
      { tail -20 "$logs/$round-$variant.log" >&2; exit 1; }
    db=$(sql -c "SELECT datname FROM pg_database WHERE datname ~ '^notify_bench_[0-9]+\$'")
    { echo "statements (pg_stat_statements, chopar's database):"; statements "$db"; } \
      >>"$logs/$round-$variant.log"
    for name in "$db" "${db}_raw"; do sql -c "DROP DATABASE $name WITH (FORCE)"; done
  done
done

# WAL bytes per delivery in chopar's database over the whole run.
wal_per_delivery() {
  awk '/^chopar database: / { wal = $7 } /^  deliveries [0-9,]+, sent/ { n = $2; gsub(",", "", n) }
       END { if (n > 0) printf "%.0f", wal / n }' "$1"
}
printf '\n%-6s %-8s %16s %11s %14s %18s %10s %10s\n' round variant "notifications/s" chopar/raw \
  "PG CPU ms/1k" "chopar CPU ms/1k" "p99, ms" "WAL B/del."
for ((round = 1; round <= rounds; round++)); do
  for variant in "${variants[@]}"; do
    log="$logs/$round-$variant.log" base="$logs/$round-named.log"
    awk -v r="$round" -v v="$variant" \
      -v n="$(figure "$log" "end to end: notifications/s")" -v n0="$(figure "$base" "end to end: notifications/s")" \
      -v a="$(figure "$log" "chopar / raw SQL")" -v a0="$(figure "$base" "chopar / raw SQL")" \
      -v p="$(figure "$log" "PostgreSQL, chopar path")" -v p0="$(figure "$base" "PostgreSQL, chopar path")" \
      -v c="$(figure "$log" "chopar process")" -v c0="$(figure "$base" "chopar process")" \
      -v l="$(figure "$log" "latency p99 (ms, from schedule)")" -v w="$(wal_per_delivery "$log")" 'BEGIN {
        printf "%-6s %-8s %7d (%5.1f%%) %5.1f (%5.1f%%) %6.1f (%5.1f%%) %8.1f (%5.1f%%) %10.2f %10s\n",
          r, v, n, 100 * n / n0, a, 100 * a / a0, p, 100 * p / p0, c, 100 * c / c0, l, w }'
  done
done
echo "(in parentheses: as a share of named in the same round)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
