#!/usr/bin/env bash
# What rendering from templates costs on the notify path: notify_bench with
# --data (requests with their title, body and data; no template) and with
# --templates (the same data, every notification rendered from its type's
# template: title, body, email and Telegram blocks) in interleaved pairs against one
# throwaway PostgreSQL, the order alternating from pair to pair, and the
# ratios of each pair printed at the end (docs/BENCHMARKS.md "Rendering from
# templates"). Figures of one pair are measured minutes apart on the same
# machine, so the ratio is what counts, not the absolute numbers.
#
#   bash bench/templates_bench.sh [notify_bench options, e.g. --notifications 50000]
#
# PAIRS sets the number of pairs (default 3); BUILD_DIR the build folder
# (default build); SKIP_BUILD=1 uses the binaries already there; LOGS=<dir>
# prints the table of an earlier run's logs again without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
pairs=${PAIRS:-3}

if [ -n "${LOGS:-}" ]; then
  logs=$LOGS
  pairs=$(find "$logs" -name '*-plain.log' | wc -l)
elif [ "${SKIP_BUILD:-0}" != 1 ]; then
  make configure BUILD_DIR="$build_dir" >/dev/null
  cmake --build "$build_dir" --target chopar notify_bench -j "${JOBS:-$(nproc)}"
fi
if [ -z "${LOGS:-}" ]; then
logs=$(mktemp -d /tmp/chopar-templates-bench.XXXXXX)
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); logs in $logs"

# One with-test-pg for every run: the runs differ only in --templates.
  bash scripts/with-test-pg bash -c '
  set -euo pipefail
  build_dir=$1 pairs=$2 logs=$3
  shift 3
  for pair in $(seq "$pairs"); do
    order="plain templates"
    [ $((pair % 2)) -eq 0 ] && order="templates plain"
    for mode in $order; do
      flag=(--data)
      [ "$mode" = templates ] && flag=(--templates)
      echo "pair $pair: $mode" >&2
      "$build_dir/bench/notify_bench" --chopar "$build_dir/chopar" "${flag[@]}" "$@" \
        >"$logs/$pair-$mode.log" 2>&1 || { tail -20 "$logs/$pair-$mode.log" >&2; exit 1; }
    done
  done
' templates_bench "$build_dir" "$pairs" "$logs" "$@"
fi

# A figure of one run's summary: the number after "<label>" in its row.
figure() {
  awk -v label="$2" '/^Summary/ { summary = 1 }
    summary && (at = index($0, label)) {
      split(substr($0, at + length(label)), words, " ")
      gsub(",", "", words[1]); print words[1]; exit }' "$1"
}
printf '\n%-5s %28s %28s %34s\n' pair "notifications/s plain → tpl" "chopar/raw SQL plain → tpl" \
  "chopar CPU ms/1,000 plain → tpl"
for pair in $(seq "$pairs"); do
  p="$logs/$pair-plain.log" t="$logs/$pair-templates.log"
  rate_p=$(figure "$p" "end to end: notifications/s") rate_t=$(figure "$t" "end to end: notifications/s")
  raw_p=$(figure "$p" "chopar / raw SQL") raw_t=$(figure "$t" "chopar / raw SQL")
  cpu_p=$(figure "$p" "chopar process") cpu_t=$(figure "$t" "chopar process")
  awk -v pair="$pair" -v rp="$rate_p" -v rt="$rate_t" -v ap="$raw_p" -v at="$raw_t" \
    -v cp="$cpu_p" -v ct="$cpu_t" 'BEGIN {
      printf "%-5s %12d → %6d (%5.1f %%) %10.1f → %5.1f %% (%5.1f %%) %12.1f → %5.1f (%5.1f %%)\n",
        pair, rp, rt, 100 * rt / rp, ap, at, 100 * at / ap, cp, ct, 100 * ct / cp }'
done
echo "(in parentheses: templates as a percentage of plain, in the same pair)"
