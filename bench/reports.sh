#!/usr/bin/env bash
# Reproduces docs/BENCHMARKS.md "Report statistics": a throwaway PostgreSQL
# (scripts/with-test-pg), chopar's migrations, a generated history, then the
# builtin report queries timed against the floor of reading the same rows.
# DAYS and PER_DAY size the history (default 35 days x 30,000 a day);
# BUILD_DIR picks the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
days=${DAYS:-35}
per_day=${PER_DAY:-30000}

[[ -x "$build_dir/chopar" ]] || make build BUILD_DIR="$build_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The report queries as the server prepares them, from their own files.
{ echo 'PREPARE summary(timestamptz, timestamptz, int) AS'; cat src/reports/queries/summary_stats.sql; echo ';'; } \
  > "$work/summary.sql"
{ echo 'PREPARE anomaly(timestamptz, timestamptz, timestamptz, timestamptz, timestamptz, timestamptz) AS'
  cat src/reports/queries/anomaly_metrics.sql; echo ';'; } > "$work/anomaly.sql"

exec bash scripts/with-test-pg bash -c '
  set -euo pipefail
  CHOPAR_DATABASE_URL="$CHOPAR_TEST_DATABASE_URL" "$0" migrate >/dev/null
  psql "$CHOPAR_TEST_DATABASE_URL" -qX -v days="$1" -v per_day="$2" \
    -v summary_prepare="$3/summary.sql" -v anomaly_prepare="$3/anomaly.sql" -f bench/reports_stats.sql
' "$build_dir/chopar" "$days" "$per_day" "$work"
