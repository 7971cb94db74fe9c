#!/usr/bin/env bash
# Reproduces "Schedules vs BullMQ" of docs/BENCHMARKS.md with one command:
# installs Redis 7 (Debian's redis-server) and BullMQ 6 (npm ci in
# bench/schedules), builds chopar, starts Redis on 127.0.0.1 with
# appendonly yes in a temporary folder and a throwaway PostgreSQL
# (scripts/with-test-pg), then runs bench/schedules/run.mjs, which starts
# `chopar serve` on loopback and measures both systems in the same run.
#
#   bash bench/schedules_bench.sh [run.mjs options, e.g. --phases a,d]
#
# BUILD_DIR picks the build folder (default build); SKIP_BUILD=1 uses the
# chopar binary already there. Takes about 10 minutes (four minute-aligned
# waits). Results also go to $BENCH_OUT (default /tmp/chopar-schedules-bench.json).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
out=${BENCH_OUT:-/tmp/chopar-schedules-bench.json}

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
if ! command -v redis-server >/dev/null; then
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq redis-server >/dev/null
fi
command -v node >/dev/null || { echo "schedules_bench: Node.js 20 is required" >&2; exit 1; }
(cd bench/schedules && npm ci --no-audit --no-fund --loglevel=error)

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  make configure BUILD_DIR="$build_dir" >/dev/null
  cmake --build "$build_dir" --target chopar -j "${JOBS:-$(nproc)}"
fi

redis_dir=$(mktemp -d /tmp/chopar-redis.XXXXXX)
redis_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
stop_redis() {
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  rm -rf "$redis_dir"
}
trap stop_redis EXIT
# Redis defaults otherwise (RDB snapshots included), as a team would run it for BullMQ.
redis-server --bind 127.0.0.1 --port "$redis_port" --appendonly yes --dir "$redis_dir" \
  --logfile "$redis_dir/redis.log" --daemonize yes
for _ in $(seq 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

echo "machine: nproc $(nproc), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM," \
  "$(uname -sr), $(redis-server --version | cut -d' ' -f1-3), node $(node --version)"
bash scripts/with-test-pg node bench/schedules/run.mjs --redis "redis://127.0.0.1:$redis_port" \
  --chopar "$build_dir/chopar" --out "$out" "$@"
