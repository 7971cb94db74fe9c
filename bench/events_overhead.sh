#!/usr/bin/env bash
# What chopar's own events cost the delivery path ("chopar's own events" in
# docs/BENCHMARKS.md): notify_bench against one throwaway PostgreSQL, in
# interleaved rounds of three variants of the same build:
#   without  [events] emit empty, in a database where events were never
#            enabled: no trigger exists (the default);
#   empty    [events] emit empty, in a database where another process has
#            enabled them: the triggers exist and return at once;
#   on       [events] emit = ["delivery.*"]: an outbox row per delivery end.
# ROUNDS (default 2) rounds; arguments go to notify_bench (default
# --notifications 30000 --seconds 3); BUILD_DIR picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
rounds=${ROUNDS:-2}
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--notifications 30000 --seconds 3)

if [ -z "${CHOPAR_TEST_DATABASE_URL:-}" ]; then
  cmake --build "$build_dir" --target chopar notify_bench
  exec bash scripts/with-test-pg bash "$0" "$@"
fi
chopar=$(realpath "$build_dir/chopar")
psql=$(command -v psql)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# notify_bench runs `<chopar> serve` with only CHOPAR_* in the environment:
# the wrapper migrates first and installs the triggers, then serves.
cat >"$work/chopar-with-triggers" <<WRAPPER
#!/bin/bash
set -e
if [ "\$1" = serve ]; then
  "$chopar" migrate >/dev/null
  "$psql" -q "\$CHOPAR_DATABASE_URL" -c 'SELECT chopar.enable_own_events()' >/dev/null
fi
exec "$chopar" "\$@"
WRAPPER
chmod +x "$work/chopar-with-triggers"

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 1; round <= rounds; round++)); do
  for variant in without empty on; do
    binary=$chopar emit=""
    [ "$variant" = empty ] && binary="$work/chopar-with-triggers"
    [ "$variant" = on ] && emit="delivery.*"
    echo "== round $round: $variant"
    CHOPAR_EVENTS_EMIT="$emit" "$build_dir/bench/notify_bench" --chopar "$binary" "${args[@]}"
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
