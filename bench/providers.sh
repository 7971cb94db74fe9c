#!/usr/bin/env bash
# Runs the five provider benchmarks of "Providers: requests in flight" in
# docs/BENCHMARKS.md, one after the other, with their default arguments.
# Builds nothing: build the targets first (`cmake --build build`).
# BUILD_DIR picks the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD_DIR:-build}/bench

echo "machine: nproc $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for benchmark in push_concurrency_benchmark telegram_concurrency_benchmark \
  email_concurrency_benchmark chat_concurrency_benchmark mobile_concurrency_benchmark; do
  echo "== $benchmark"
  "$bin/$benchmark" || status=1
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
