#!/usr/bin/env bash
# What -Og instead of -O2 saves when compiling the test programs
# (README "Development", docs/BENCHMARKS.md "Compile time"): a sample of
# test files, each compiled with both flags by the build's own command
# lines, in alternating order over two rounds, summing user + system CPU
# seconds per flag. Needs a configured build (default: build/).
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/../$build"
objects=(
  src/hub/CMakeFiles/hub_pgtest.dir/hub_pgtest.cpp.o
  src/http/CMakeFiles/http_pgtest.dir/http_pgtest.cpp.o
  src/app/CMakeFiles/app_test.dir/config_test.cpp.o
  src/delivery/CMakeFiles/delivery_pgtest.dir/worker_pgtest.cpp.o
  src/templates/CMakeFiles/templates_test.dir/template_test.cpp.o
  src/core/CMakeFiles/core_test.dir/json_test.cpp.o
  src/schedule/CMakeFiles/schedule_pgtest.dir/scheduler_pgtest.cpp.o
  src/channels/email/CMakeFiles/channels_email_test.dir/channel_test.cpp.o
  src/outbox/CMakeFiles/outbox_pgtest.dir/relay_pgtest.cpp.o
)
commands=$(ninja -t commands)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
declare -A total=([-O2]=0 [-Og]=0)
for round in 1 2; do
  order=(-O2 -Og)
  [ "$round" = 2 ] && order=(-Og -O2)
  for flag in "${order[@]}"; do
    for object in "${objects[@]}"; do
      command=$(grep -m1 -F -- "-o $object -c" <<<"$commands" | sed 's/^[^ ]*ccache //')
      [ -n "$command" ] || { echo "no command for $object" >&2; exit 1; }
      # The test programs' own flag (-Og) replaced by the one measured.
      command=$(sed "s# -Og # $flag #; s# -o $object # -o $scratch/probe.o #" <<<"$command")
      /usr/bin/time -o "$scratch/time" -f "%U %S" sh -c "$command" >/dev/null 2>&1
      total[$flag]=$(awk -v sum="${total[$flag]}" '{ printf "%.2f", sum + $1 + $2 }' "$scratch/time")
    done
    echo "round $round $flag: cumulative ${total[$flag]} CPU-s"
  done
done
awk -v o2="${total[-O2]}" -v og="${total[-Og]}" \
  'BEGIN { printf "-O2 %.1f CPU-s, -Og %.1f CPU-s: ratio %.2f\n", o2, og, og / o2 }'
