#!/usr/bin/env bash
# What each feature costs the notify path (docs/BENCHMARKS.md "Holding the
# line"): notify_bench on one throwaway PostgreSQL, in interleaved rounds of
# the variants of this build —
#   plain      requests with a title and a body (the path every other figure
#              of the notify benchmark measures);
#   templated  every notification rendered from its type's template
#              (notify_bench --templates);
#   dedup      every request with a dedup key of its own (--dedup-keys);
#   events     chopar's own delivery.* events on (an outbox row per delivery
#              end, [events] emit);
#   workflow   the type has a three-step workflow (email; a 1 s delay;
#              telegram if unread): a run per notification instead of its
#              deliveries, the step advancer sends the same two
#              (--workflow-steps; not in the default list: `make
#              bench-workflow` runs it against plain);
# and each variant's share of its own raw-SQL ceiling as a ratio of the plain
# path's share in the same round, the median over the rounds: end to end
# (every delivery sent), and the notify path alone (the batches accepted)
# against the ceiling's insert of the same rows.
#
#   bash bench/feature_paths.sh [notify_bench options]
#
# ROUNDS (default 3); VARIANTS (default "plain templated dedup events");
# BUILD_DIR the build folder; SKIP_BUILD=1 uses the binaries already there.
# Arguments go to notify_bench (default --notifications 50000 --seconds 3).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
rounds=${ROUNDS:-3}
variants=${VARIANTS:-plain templated dedup events}
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--notifications 50000 --seconds 3)

source bench/notify_bench_lib.sh
rerun_under_test_pg_with_statements "$@"

logs=$(mktemp -d /tmp/chopar-feature-paths.XXXXXX)
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); logs in $logs"
for round in $(seq "$rounds"); do
  # Every other round in reverse order: no variant always runs first.
  order=$variants
  [ $((round % 2)) = 1 ] || order=$(tr ' ' '\n' <<<"$variants" | grep . | tac | tr '\n' ' ')
  for variant in $order; do
    flags=() emit=""
    case $variant in
      plain) ;;
      templated) flags=(--templates) ;;
      dedup) flags=(--dedup-keys) ;;
      events) emit="delivery.*" ;;
      workflow) flags=(--workflow-steps) ;;
      *) echo "feature_paths.sh: unknown variant $variant" >&2; exit 2 ;;
    esac
    log=$logs/$round-$variant.log
    echo "round $round: $variant (load $(cut -d' ' -f1 /proc/loadavg))"
    CHOPAR_EVENTS_EMIT="$emit" "$build_dir/bench/notify_bench" --chopar "$build_dir/chopar" \
      "${flags[@]}" "${args[@]}" >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  done
done

# One table per figure: each round's share, and / plain (the median).
ratios_table() {
  local label=$1
  printf '\n%-10s %s\n' variant "$label per round, and / plain (median)"
  for variant in $variants; do
    shares="" ratios=""
    for round in $(seq "$rounds"); do
      share=$(figure "$logs/$round-$variant.log" "$2")
      plain=$(figure "$logs/$round-plain.log" "$2")
      shares+="$share % "
      ratios+="$(awk -v s="$share" -v p="$plain" 'BEGIN { printf "%.3f", s / p }') "
    done
    median=$(tr ' ' '\n' <<<"$ratios" | grep . | sort -n | awk '{ v[NR] = $1 }
      END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    printf '%-10s %s→ %s of plain\n' "$variant" "$shares" "$median"
  done
}
ratios_table "end to end: share of the raw-SQL ceiling" "chopar / raw SQL"
ratios_table "notify alone (batches accepted): share of the raw-SQL insert" \
  "notify alone / raw-SQL insert"
for round in $(seq "$rounds"); do
  [ -f "$logs/$round-workflow.log" ] || continue
  share=$(figure "$logs/$round-workflow.log" "end to end less the delay / raw SQL")
  plain=$(figure "$logs/$round-plain.log" "chopar / raw SQL")
  echo "round $round, workflow end to end less its delay step's wait: $share % of raw SQL," \
    "$(awk -v s="$share" -v p="$plain" 'BEGIN { printf "%.3f", s / p }') of plain's end to end"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
