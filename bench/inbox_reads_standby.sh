#!/usr/bin/env bash
# Inbox reads against one primary and against primary + one hot standby,
# side by side (docs/SCALING.md "Reads from standbys"): the data of
# bench/inbox_reads.sh (USERS users, INBOX_ROWS delivered rows of history),
# a streaming replica of the throwaway cluster (pg_basebackup -R, on its own
# socket), and two `chopar serve` processes on the same database: one
# without read_urls (every read on the primary), one with read_urls = the
# standby. ROUNDS rounds, each running wrk on both in turn (the order
# alternating each round), for the first page of the inbox
# (GET /v1/users/{random}/notifications?limit=20) and the unread count.
# With WRITES=1, two writes too (PUT /v1/users/{random}, POST
# /v1/notifications for a random user): what fetching the
# write's Chopar-LSN costs. Prints, for each run, requests/s, p50/p99 and
# the CPU ms per 1,000 requests of chopar, the primary's PostgreSQL and the
# standby's.
#
#   bash bench/inbox_reads_standby.sh
#
# USERS (default 10000), INBOX_ROWS (default 1000000), ROUNDS (default 3),
# SECONDS_EACH (default 10), CONNECTIONS (default 32); BUILD_DIR the build
# folder (default build); SKIP_BUILD=1 uses the binary already there. Needs
# wrk. Both servers, both chopar processes and wrk share this machine's cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
users=${USERS:-10000}
rows=${INBOX_ROWS:-1000000}
rounds=${ROUNDS:-3}
seconds=${SECONDS_EACH:-10}
connections=${CONNECTIONS:-32}

source bench/inbox_history_lib.sh
rerun_under_test_pg inbox_reads_standby "$build_dir" "$@"
work=$(mktemp -d)
url=$CHOPAR_TEST_DATABASE_URL
seed_inbox_history "$url" "$build_dir" "$users" "$rows"

# The standby: a base backup of the cluster, started on a socket of its own
# as the account the primary runs as.
primary_dir=$(sed -E 's/.*host=([^&]*).*/\1/' <<<"$url")
standby=$(mktemp -d /tmp/chopar-bench-standby.XXXXXX)
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  chown "$CHOPAR_TEST_PG_OS_USER": "$standby"
  as_pg=(runuser -u "$CHOPAR_TEST_PG_OS_USER" --)
fi
"${as_pg[@]}" "$CHOPAR_TEST_PG_BINDIR/pg_basebackup" -d "host=$primary_dir user=postgres" \
  -D "$standby/data" -R -X stream -c fast
"${as_pg[@]}" "$CHOPAR_TEST_PG_BINDIR/pg_ctl" -D "$standby/data" -l "$standby/server.log" -w -t 60 \
  start -o "-c listen_addresses='' -k $standby -c fsync=off -c max_connections=400 -c shared_buffers=256MB" >/dev/null
standby_url=${url/host=$primary_dir/host=$standby}

start_serve() {  # name, extra environment...
  local name=$1 port
  shift
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  env CHOPAR_DATABASE_URL="$url" CHOPAR_SERVER_LISTEN=127.0.0.1:$port CHOPAR_SERVER_API_KEY=bench-key \
    CHOPAR_SERVER_DATA_DIR="$work/$name" CHOPAR_SERVER_ROLES=api "$@" \
    "$build_dir/chopar" serve >"$work/$name.log" 2>&1 &
  echo "$! $port"
}
read -r plain plain_port < <(start_serve plain)
read -r routed routed_port < <(start_serve routed CHOPAR_DATABASE_READ_URLS="$standby_url")
cleanup() {
  kill "$plain" "$routed" 2>/dev/null || true
  wait "$plain" "$routed" 2>/dev/null || true
  "${as_pg[@]}" "$CHOPAR_TEST_PG_BINDIR/pg_ctl" -D "$standby/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work" "$standby"
}
trap cleanup EXIT
for port in "$plain_port" "$routed_port"; do
  for _ in $(seq 150); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
done
primary_pm=$(head -1 "$(psql -XAt "$url" -c 'SHOW data_directory')/postmaster.pid")
standby_pm=$(head -1 "$standby/data/postmaster.pid")

cpu_of() {  # CPU seconds of a process and its children
  local total=0 pid
  for pid in $1 $(pgrep -P "$1"); do
    total=$(awk -v t="$total" '{ print t + ($14 + $15 + $16 + $17) / 100 }' "/proc/$pid/stat" 2>/dev/null || echo "$total")
  done
  echo "$total"
}
echo "inbox reads, primary alone vs primary + 1 standby: $users users, $rows delivered rows," \
  "$connections connections, ${seconds} s a run, $rounds rounds; $(nproc) cores shared by both" \
  "servers, both chopar processes and wrk; load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # label, chopar pid, port, path (a write: "PUT user" or "POST notification")
  local label=$1 pid=$2 port=$3 path=$4
  case $path in
    "PUT user") cat >"$work/random.lua" <<LUA ;;
request = function()
  local id = math.random(1, $users)
  return wrk.format("PUT", "/v1/users/" .. id, {["Authorization"] = "Bearer bench-key", ["Content-Type"] = "application/json"},
    '{"email": "user' .. id .. '@bench.example", "locale": "' .. (math.random(2) == 1 and "uz" or "ru") .. '"}')
end
LUA
    "POST notification") cat >"$work/random.lua" <<LUA ;;
request = function()
  return wrk.format("POST", "/v1/notifications", {["Authorization"] = "Bearer bench-key", ["Content-Type"] = "application/json"},
    '{"user_id": ' .. math.random(1, $users) .. ', "type": "bench.ping", "title": "t"}')
end
LUA
    *) cat >"$work/random.lua" <<LUA ;;
request = function()
  return wrk.format("GET", "/v1/users/" .. math.random(1, $users) .. "/$path", {["Authorization"] = "Bearer bench-key"})
end
LUA
  esac
  wrk -t2 -c"$connections" -d1s -s "$work/random.lua" "http://127.0.0.1:$port" >/dev/null
  local c0 p0 s0 c1 p1 s1
  c0=$(cpu_of "$pid") p0=$(cpu_of "$primary_pm") s0=$(cpu_of "$standby_pm")
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/random.lua" "http://127.0.0.1:$port" >"$work/wrk.txt"
  c1=$(cpu_of "$pid") p1=$(cpu_of "$primary_pm") s1=$(cpu_of "$standby_pm")
  awk -v label="$label" -v path="$path" -v c0="$c0" -v c1="$c1" -v p0="$p0" -v p1="$p1" -v s0="$s0" -v s1="$s1" '
    /requests in/ { n = $1 }
    /Requests\/sec/ { rate = $2 }
    /^ +50%/ { p50 = $2 }
    /^ +99%/ { p99 = $2 }
    /Non-2xx/ { bad = $NF }
    END { printf "%-16s %-28s %9.0f req/s  p50 %-8s p99 %-8s CPU ms/1,000: chopar %4.0f, primary %4.0f, standby %4.0f%s\n",
          label, path, rate, p50, p99, 1e6 * (c1 - c0) / n, 1e6 * (p1 - p0) / n, 1e6 * (s1 - s0) / n,
          bad ? "  NON-2XX " bad : "" }' "$work/wrk.txt"
}
for round in $(seq "$rounds"); do
  echo "-- round $round"
  for path in "notifications?limit=20" "notifications/unread-count" ${WRITES:+"PUT user" "POST notification"}; do
    if [ $((round % 2)) = 1 ]; then
      run primary "$plain" "$plain_port" "$path"
      run "primary+standby" "$routed" "$routed_port" "$path"
    else
      run "primary+standby" "$routed" "$routed_port" "$path"
      run primary "$plain" "$plain_port" "$path"
    fi
  done
done
curl -fs -H "Authorization: Bearer bench-key" "http://127.0.0.1:$routed_port/metrics" |
  grep -E '^chopar_read(s_total|_fallbacks_total|_standby)' || true
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
