#!/usr/bin/env bash
# The chaos lab on a pg_auto_failover cluster (make ha-lab): brings a
# three-node cluster up with tests/ha/cluster.sh in a temporary folder, runs
# HaLab.* of the built faults_pgtest against it for HA_SECONDS (600 by
# default) — the lab's workload and faults, with a switchover and a kill -9
# of the primary in turn every HA_FAILOVER_SECONDS (80) —, prints the
# figures, writes them to BUILD_DIR/ha-report.md, and tears the cluster down
# whatever the outcome. As root the cluster runs as the postgres account
# (cluster.sh sees to it); as another user, as that user.
#
#   tests/faults/ha_lab.sh [BUILD_DIR]
#
# HA_SEED replays a run's fault draws; HA_LEASE_SECONDS sets chopar's
# [delivery] lease_seconds (the lab's 10 s by default).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build_dir=$(cd "${1:-$source_dir/build}" && pwd)
cluster="${CHOPAR_TEST_HA_CLUSTER:-$source_dir/tests/ha/cluster.sh}"
test_binary="$build_dir/tests/faults/faults_pgtest"
[ -f "$cluster" ] || { echo "ha-lab: $cluster is missing" >&2; exit 1; }
[ -x "$test_binary" ] || { echo "ha-lab: build $test_binary first" >&2; exit 1; }

# The cluster's folder is created by cluster.sh (as the postgres account
# when root) inside a folder every account can enter.
root=$(mktemp -d /tmp/chopar-ha-lab.XXXXXX)
chmod 755 "$root"
dir="$root/cluster"
# On failure the cluster's logs are kept (down removes its folder).
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ] && [ -d "$dir" ]; then
    local kept
    kept=$(mktemp -d /tmp/chopar-ha-lab-logs.XXXXXX)
    cp "$dir"/*.log "$kept"/ 2>/dev/null || true
    echo "ha-lab: the cluster's logs are kept in $kept" >&2
  fi
  bash "$cluster" down "$dir" || true
  rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "ha-lab: bringing the cluster up in $dir" >&2
up=$(bash "$cluster" up "$dir")
eval "$up"
: "${CHOPAR_HA_URL:?cluster.sh up printed no CHOPAR_HA_URL}"

# chopar refuses unknown CHOPAR_ variables in its environment; the lab's
# own are CHOPAR_TEST_ ones.
status=0
env -u CHOPAR_HA_URL -u CHOPAR_HA_MONITOR_URL -u CHOPAR_HA_DIR \
  CHOPAR_TEST_HA_URL="$CHOPAR_HA_URL" CHOPAR_TEST_HA_DIR="${CHOPAR_HA_DIR:-$dir}" \
  CHOPAR_TEST_HA_SCRIPT="$cluster" CHOPAR_TEST_HA_SECONDS="${HA_SECONDS:-600}" \
  CHOPAR_TEST_HA_FAILOVER_SECONDS="${HA_FAILOVER_SECONDS:-80}" CHOPAR_TEST_HA_SEED="${HA_SEED:-}" \
  CHOPAR_TEST_HA_LEASE_SECONDS="${HA_LEASE_SECONDS:-}" \
  CHOPAR_TEST_HA_REPORT="$build_dir/ha-report.md" \
  "$test_binary" --gtest_filter='HaLab.*' || status=$?
echo "ha-lab: figures in $build_dir/ha-report.md" >&2
exit $status
