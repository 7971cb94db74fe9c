# Shared by bench/inbox_reads.sh and bench/inbox_reads_standby.sh: run the
# calling script under a throwaway PostgreSQL, and fill its database with the
# inbox history both read.

# Re-runs the calling script (`$0` with its arguments) under
# scripts/with-test-pg unless it already runs under one; builds chopar first
# unless SKIP_BUILD=1. `name` prefixes the error when wrk is missing.
rerun_under_test_pg() {
  local name=$1 build_dir=$2
  shift 2
  [ -z "${CHOPAR_TEST_DATABASE_URL:-}" ] || return 0
  command -v wrk >/dev/null || { echo "$name: wrk is required (apt-get install wrk)" >&2; exit 1; }
  [ "${SKIP_BUILD:-0}" = 1 ] || cmake --build "$build_dir" --target chopar
  exec bash scripts/with-test-pg bash "$0" "$@"
}

# Migrates the database at `url` and gives it `users` users and `rows`
# delivered notifications of history spread over 90 days (bench/history.sql),
# vacuumed and analyzed.
seed_inbox_history() {
  local url=$1 build_dir=$2 users=$3 rows=$4
  CHOPAR_DATABASE_URL=$url "$build_dir/chopar" migrate >/dev/null
  psql -Xq "$url" -c "INSERT INTO chopar.users (id, email)
    SELECT g, 'user' || g || '@bench.example' FROM generate_series(1, $users) g"
  psql -Xq "$url" -v rows="$rows" -v users="$users" -v days=90 -v chunk=500000 -f bench/history.sql \
    2>&1 | grep -v NOTICE || true
  psql -Xq "$url" -c 'VACUUM (FREEZE, ANALYZE)'
}
