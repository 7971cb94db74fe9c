#!/usr/bin/env bash
# Reproduces the "Transactional outbox" figures of docs/BENCHMARKS.md: builds
# chopar and outbox_bench, starts a throwaway PostgreSQL (scripts/with-test-pg)
# and runs the benchmark, which starts its own nats-server -js. Arguments go
# to outbox_bench (`--help` lists them); BUILD_DIR picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}

cmake --build "$build_dir" --target chopar outbox_bench
echo "machine: nproc $(nproc), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM," \
  "$(uname -sr), $(pg_config --version 2>/dev/null || echo 'PostgreSQL ?'), $(nats-server --version 2>/dev/null || /usr/sbin/nats-server --version)"
exec bash scripts/with-test-pg "$build_dir/bench/outbox_bench" --chopar "$build_dir/chopar" "$@"
