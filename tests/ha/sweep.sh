#!/usr/bin/env bash
# Stops what tests killed at their timeout left running. ctest kills such a
# test outright, so its TearDown never runs: the pg_auto_failover cluster of
# an HA test (monitor, nodes, keepers) and the chopar processes of a
# black-box test would outlive it, holding ports, memory and CPU.
#
# - Every /tmp/chopar-ha-switchover-<pid> whose test process is gone: its
#   cluster is brought down (cluster.sh down) and the folder removed.
# - Every process whose working directory is a /tmp/chopar-bb-<pid>-<test>
#   folder of a test process that is gone (black-box tests run chopar, and
#   embedded clusters, there) is killed, and the folder removed.
#
# A folder whose process still runs belongs to a test in progress (another
# build's, perhaps) and is left alone. ctest runs this after the HA tests,
# whatever their outcome (FIXTURES_CLEANUP in tests/ha/CMakeLists.txt).
#
#   tests/ha/sweep.sh
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=${TMPDIR:-/tmp}
# Whether test process $1 is gone (/proc, not kill -0: a process of another
# account still runs).
gone() { [[ "$1" =~ ^[0-9]+$ ]] && [ ! -d "/proc/$1" ]; }

clusters=0
for root in "$tmp"/chopar-ha-switchover-*; do
  [ -d "$root" ] || continue
  gone "${root##*-}" || continue
  echo "sweep: $root was left by a test that is gone: bringing its cluster down" >&2
  bash "$here/cluster.sh" down "$root/cluster" || echo "sweep: cluster.sh down failed for $root" >&2
  rm -rf "$root"
  clusters=$((clusters + 1))
done

processes=0
for cwd in /proc/[0-9]*/cwd; do
  folder=$(readlink "$cwd" 2>/dev/null) || continue
  [[ "$folder" =~ ^$tmp/chopar-bb-([0-9]+)- ]] || continue
  gone "${BASH_REMATCH[1]}" || continue
  pid=${cwd#/proc/}
  pid=${pid%/cwd}
  kill -KILL "$pid" 2>/dev/null && processes=$((processes + 1))
done
folders=0
for folder in "$tmp"/chopar-bb-*; do
  [[ "$folder" =~ /chopar-bb-([0-9]+)- ]] || continue
  gone "${BASH_REMATCH[1]}" || continue
  rm -rf "$folder" && folders=$((folders + 1))
done
echo "sweep: $clusters HA cluster(s), $processes process(es) and $folders folder(s) of tests that are gone"
