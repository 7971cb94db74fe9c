#!/usr/bin/env bash
# The notify benchmark against two chopar binaries — this build ("after")
# and another one, e.g. of an earlier commit ("before") — in interleaved
# pairs on one throwaway PostgreSQL, the order alternating from pair to pair
# (docs/BENCHMARKS.md "Digests": the plain path before and after the
# workflows). The same notify_bench (this build's) drives both; each run
# measures its own raw-SQL ceiling, and the table gives each binary's share
# of it, which is what compares across runs on a loaded machine.
#
#   BEFORE=/tmp/before/build/chopar bash bench/notify_versions.sh [notify_bench options]
#
# PAIRS (default 2); BUILD_DIR the build folder (default build); SKIP_BUILD=1
# uses the binaries already there. Logs stay in the folder printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
pairs=${PAIRS:-2}
before=$(realpath "${BEFORE:?BEFORE=<path of the other chopar binary>}")

source bench/notify_bench_lib.sh
rerun_under_test_pg_with_statements "$@"

logs=$(mktemp -d /tmp/chopar-notify-versions.XXXXXX)
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); before: $before; logs in $logs"
for pair in $(seq "$pairs"); do
  order="before after"
  [ $((pair % 2)) -eq 0 ] && order="after before"
  for version in $order; do
    binary=$build_dir/chopar
    [ "$version" = before ] && binary=$before
    echo "pair $pair: $version (load $(cut -d' ' -f1 /proc/loadavg))"
    "$build_dir/bench/notify_bench" --chopar "$binary" "$@" >"$logs/$pair-$version.log" 2>&1 ||
      { tail -20 "$logs/$pair-$version.log" >&2; exit 1; }
  done
done

printf '\n%-5s %-7s %18s %22s %16s\n' pair version "notifications/s" "raw-SQL notifications/s" "chopar/raw SQL"
for pair in $(seq "$pairs"); do
  for version in before after; do
    log=$logs/$pair-$version.log
    printf '%-5s %-7s %18s %22s %14s %%\n' "$pair" "$version" \
      "$(figure "$log" "end to end: notifications/s")" \
      "$(figure "$log" "raw-SQL ceiling: notifications/s")" "$(figure "$log" "chopar / raw SQL")"
  done
  awk -v b="$(figure "$logs/$pair-before.log" "chopar / raw SQL")" \
      -v a="$(figure "$logs/$pair-after.log" "chopar / raw SQL")" \
      'BEGIN { printf "      after / before (shares of the ceiling): %.1f %%\n", 100 * a / b }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
