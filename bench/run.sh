#!/usr/bin/env bash
# Reproduces the "Notifications end to end" figures of docs/BENCHMARKS.md with
# one command: builds chopar and notify_bench, starts a throwaway PostgreSQL on
# this machine (scripts/with-test-pg) and runs the benchmark against it.
# Arguments go to notify_bench, e.g. `bash bench/run.sh --notifications 20000`;
# BUILD_DIR picks the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}

make build BUILD_DIR="$build_dir"
echo "machine: nproc $(nproc), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM," \
  "$(uname -sr), $(pg_config --version 2>/dev/null || echo 'PostgreSQL ?')"
exec bash scripts/with-test-pg "$build_dir/bench/notify_bench" --chopar "$build_dir/chopar" "$@"
