#!/usr/bin/env bash
# Reproduces the "Bulk user import" figures of docs/BENCHMARKS.md: USERS
# users (1,000,000 by default) imported by `chopar users import FILE.csv`
# (the batches of POST /v1/users/import) against a raw COPY of the same rows
# into the same table, on the same database, interleaved ROUNDS times (the
# table and the audit log truncated and checkpointed before each run).
# Prints each run's rate and the ratio of the medians.
#
#   bash scripts/with-test-pg bash bench/user_import_bench.sh [--users N] [--rounds R]
#        [--batch B] [--chopar PATH] [--check]
#
# --check: a correctness test, not a timing one (a short slice runs in the
# test suite): fails unless the rows the import wrote are exactly the rows
# COPY wrote. Needs CHOPAR_TEST_DATABASE_URL (scripts/with-test-pg).
set -euo pipefail
cd "$(dirname "$0")/.."
users=1000000
rounds=3
batch=10000
chopar=${BUILD_DIR:-build}/chopar
check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --users) users=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --chopar) chopar=$2; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "user_import_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
: "${CHOPAR_TEST_DATABASE_URL:?run under scripts/with-test-pg}"

work=$(mktemp -d /tmp/chopar-user-import.XXXXXX)
database="user_import_bench_$$"
server_url=$CHOPAR_TEST_DATABASE_URL
bench_url=${server_url/\/\/\/postgres/\/\/\/$database}
cleanup() {
  psql -q "$server_url" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

# The same users twice: the import's CSV (data.<key> columns) and COPY's
# (data as JSON text, in the form the import stores).
python3 - "$users" "$work/users.csv" "$work/copy.csv" <<'EOF'
import sys
count, import_path, copy_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
zones = ["Asia/Tashkent", "UTC", "Europe/Moscow"]
locales = ["uz", "en", "ru"]
with open(import_path, "w") as imp, open(copy_path, "w") as cp:
    imp.write("id,email,phone,timezone,locale,data.plan,data.seats\n")
    for i in range(1, count + 1):
        email = f"user{i}@example.uz"
        phone = f"+99890{i % 10000000:07d}"
        zone, locale = zones[i % 3], locales[i % 3]
        plan, seats = ("pro" if i % 4 == 0 else "free"), i % 50
        imp.write(f"{i},{email},{phone},{zone},{locale},{plan},{seats}\n")
        data = '{""plan"": ""%s"", ""seats"": %d}' % (plan, seats)
        cp.write(f'{i},{email},{phone},{zone},{locale},"{data}"\n')
EOF

psql -q "$server_url" -c "CREATE DATABASE $database" >/dev/null
CHOPAR_DATABASE_URL=$bench_url "$chopar" migrate >/dev/null 2>&1

reset_table() {
  psql -q "$bench_url" -c "TRUNCATE chopar.users CASCADE" -c "TRUNCATE chopar.audit_log" \
    -c "CHECKPOINT" >/dev/null 2>&1
}
rows_digest() {
  psql -qAt "$bench_url" -c "SELECT count(*) || ' ' || md5(string_agg(
    concat_ws('|', id, email, phone, timezone, locale, data::text, preferences::text, admin),
    ',' ORDER BY id)) FROM chopar.users"
}
now() { date +%s.%N; }

echo "machine: nproc $(nproc), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM," \
  "$(uname -sr), $(pg_config --version 2>/dev/null || echo 'PostgreSQL ?'); $users users, batch $batch"
import_rates=()
copy_rates=()
for round in $(seq 1 "$rounds"); do
  reset_table
  start=$(now)
  CHOPAR_DATABASE_URL=$bench_url "$chopar" users import "$work/users.csv" --batch "$batch" \
    >"$work/import.out" 2>"$work/import.err" || {
    echo "user_import_bench: the import failed" >&2
    tail -5 "$work/import.err" >&2
    exit 1
  }
  seconds=$(echo "$(now) - $start" | bc -l)
  imported_digest=$(rows_digest)
  import_rates+=("$(echo "$users / $seconds" | bc -l)")
  printf 'round %d  import %8.0f users/s  (%.2f s)  %s\n' "$round" "${import_rates[-1]}" "$seconds" \
    "$(cat "$work/import.out")"

  reset_table
  start=$(now)
  psql -q "$bench_url" -c "\\copy chopar.users (id, email, phone, timezone, locale, data) FROM '$work/copy.csv' WITH (FORMAT csv)"
  seconds=$(echo "$(now) - $start" | bc -l)
  copied_digest=$(rows_digest)
  copy_rates+=("$(echo "$users / $seconds" | bc -l)")
  printf 'round %d  COPY   %8.0f users/s  (%.2f s)\n' "$round" "${copy_rates[-1]}" "$seconds"

  if [ "$imported_digest" != "$copied_digest" ]; then
    echo "user_import_bench: the import wrote other rows than COPY ($imported_digest vs $copied_digest)" >&2
    exit 1
  fi
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
import_median=$(median "${import_rates[@]}")
copy_median=$(median "${copy_rates[@]}")
printf 'median: import %.0f users/s, COPY %.0f users/s, import/COPY %.1f %%\n' \
  "$import_median" "$copy_median" "$(echo "100 * $import_median / $copy_median" | bc -l)"
if [ "$check" -eq 1 ]; then echo "check: the import and COPY wrote the same $users rows"; fi
