#!/usr/bin/env bash
# The notify benchmark against two chopar binaries — this build ("after")
# and another one, e.g. of an earlier commit ("before") — in interleaved
# pairs on one throwaway PostgreSQL, the order alternating from pair to pair
# (docs/BENCHMARKS.md "Digests": the plain path before and after the
# workflows). The same notify_bench (this build's) drives both; each run
# measures its own ceilings (raw SQL, and raw SQL doing chopar's work), and
# the table gives each binary's share of them, which is what compares across
# runs on a loaded machine, with its PostgreSQL CPU per notification against
# the work-matched ceiling's, and the p99 of single POSTs beside the
# /healthz floor of the same run.
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

printf '\n%-5s %-7s %16s %15s %17s %14s %12s %12s\n' pair version "notifications/s" "/ raw SQL" \
  "/ work-matched" "PG CPU / w-m" "p99 ms" "healthz p99"
for pair in $(seq "$pairs"); do
  for version in before after; do
    log=$logs/$pair-$version.log
    printf '%-5s %-7s %16s %13s %% %15s %% %13sx %12s %12s\n' "$pair" "$version" \
      "$(figure "$log" "end to end: notifications/s")" "$(figure "$log" "chopar / raw SQL")" \
      "$(figure "$log" "chopar / work-matched ceiling")" \
      "$(figure "$log" "PostgreSQL, chopar path / work-matched ceiling" | tr -d x)" \
      "$(figure "$log" "latency p99 (ms, from schedule)")" \
      "$(figure "$log" "GET /healthz p50 / p99 (ms, same rate)" 3)"
  done
  awk -v b="$(figure "$logs/$pair-before.log" "chopar / raw SQL")" \
      -v a="$(figure "$logs/$pair-after.log" "chopar / raw SQL")" \
      'BEGIN { printf "      after / before (shares of the ceiling): %.1f %%\n", 100 * a / b }'
done
# The median of each figure over the pairs, per version (the acceptance of
# docs/BENCHMARKS.md's comparisons: at least three pairs).
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "median over $pairs pairs:"
for version in before after; do
  line=$version
  for label in "chopar / raw SQL" "chopar / work-matched ceiling" \
               "PostgreSQL, chopar path / work-matched ceiling" "latency p99 (ms, from schedule)"; do
    value=$(for pair in $(seq "$pairs"); do figure "$logs/$pair-$version.log" "$label" | tr -d x; done | median)
    line="$line; $label $value"
  done
  line="$line; healthz p99 $(for pair in $(seq "$pairs"); do
    figure "$logs/$pair-$version.log" "GET /healthz p50 / p99 (ms, same rate)" 3; done | median)"
  echo "  $line"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
