#!/usr/bin/env bash
# Holds the line on the notify path (docs/BENCHMARKS.md "Holding the line"),
# for `make bench-guard`:
#   1. the notify benchmark of this build and of an earlier commit BASE,
#      interleaved in PAIRS pairs (bench/notify_versions.sh): each one's
#      share of the raw-SQL ceiling measured in its own run, and after/before;
#   2. the feature paths of this build (bench/feature_paths.sh): templated,
#      dedup keys and events on, each as a ratio of the plain path.
#
#   make bench-guard BASE=946804a [PAIRS=3] [ROUNDS=3]
#   BASE=946804a bash bench/guard.sh [notify_bench options]
#
# BASE's chopar is built once, in a detached worktree under
# ${GUARD_DIR:-/tmp}/chopar-guard-<commit> (chopar alone, no tests), and
# reused by later runs. FEATURES=0 skips part 2.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
base=$(git rev-parse --verify "${BASE:?BASE=<an earlier commit>}^{commit}")
base_dir=${GUARD_DIR:-/tmp}/chopar-guard-$base

if [ ! -x "$base_dir/build/chopar" ]; then
  echo "bench-guard: building chopar at ${base:0:12} in $base_dir (once)"
  [ -d "$base_dir" ] || git worktree add --detach "$base_dir" "$base" >/dev/null
  cmake -S "$base_dir" -B "$base_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCHOPAR_BUILD_TESTS=OFF -DCHOPAR_BUILD_BENCH=OFF >/dev/null
  cmake --build "$base_dir/build" --target chopar -j "${JOBS:-$(nproc)}"
fi
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  make configure BUILD_DIR="$build_dir" >/dev/null
  cmake --build "$build_dir" --target chopar notify_bench -j "${JOBS:-$(nproc)}"
fi

echo "== this build ($(git rev-parse --short HEAD)) against ${base:0:12}, interleaved"
SKIP_BUILD=1 BUILD_DIR="$build_dir" PAIRS=${PAIRS:-3} BEFORE="$base_dir/build/chopar" \
  bash bench/notify_versions.sh "$@"
if [ "${FEATURES:-1}" != 0 ]; then
  echo
  echo "== the feature paths of this build"
  SKIP_BUILD=1 BUILD_DIR="$build_dir" bash bench/feature_paths.sh "$@"
fi
