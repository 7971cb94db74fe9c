#!/usr/bin/env bash
# Inbox reads per second (docs/SCALING.md): `chopar serve` on a throwaway
# PostgreSQL with USERS users and INBOX_ROWS delivered rows of history
# (bench/history.sql: half as many notifications, 90 days), then wrk asks,
# for a random user each time, GET /v1/users/{id}/notifications?limit=20
# (the first page of the inbox) and GET .../notifications/unread-count with
# the API key, then GET /v1/inbox/unread-count with the subscriber token of
# one of TOKEN_USERS random users (the same count, behind the token's
# signature, generation and rate-limit checks; the limits are turned off so
# that they measure their cost, not their refusals), for SECONDS each with
# CONNECTIONS connections. Prints wrk's figures and the CPU seconds chopar
# and PostgreSQL spent per 1,000 requests.
#
#   bash bench/inbox_reads.sh
#
# USERS (default 10000), INBOX_ROWS (default 2000000), TOKEN_USERS (default
# 1000), SECONDS_EACH (default 10), CONNECTIONS (default 32); BUILD_DIR the
# build folder (default build);
# SKIP_BUILD=1 uses the binary already there. Needs wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
users=${USERS:-10000}
rows=${INBOX_ROWS:-2000000}
token_users=${TOKEN_USERS:-1000}
seconds=${SECONDS_EACH:-10}
connections=${CONNECTIONS:-32}

source bench/inbox_history_lib.sh
rerun_under_test_pg inbox_reads "$build_dir" "$@"
work=$(mktemp -d)
url=$CHOPAR_TEST_DATABASE_URL
seed_inbox_history "$url" "$build_dir" "$users" "$rows"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
CHOPAR_DATABASE_URL=$url CHOPAR_SERVER_LISTEN=127.0.0.1:$port CHOPAR_SERVER_API_KEY=bench-key \
  CHOPAR_SERVER_DATA_DIR=$work/data CHOPAR_LIMITS_HTTP_SUBSCRIBER_PER_SECOND=0 \
  CHOPAR_LIMITS_HTTP_ADDRESS_PER_SECOND=0 "$build_dir/chopar" serve >"$work/chopar.log" 2>&1 &
chopar=$!
trap 'kill $chopar 2>/dev/null; wait $chopar 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
postmaster=$(head -1 "$(psql -XAt "$url" -c 'SHOW data_directory')/postmaster.pid")

# CPU seconds (user + system) of a process and its children, reaped or not.
cpu_of() {
  local total=0 pid
  for pid in $1 $(pgrep -P "$1"); do
    total=$(awk -v t="$total" '{ print t + ($14 + $15 + $16 + $17) / 100 }' "/proc/$pid/stat" 2>/dev/null || echo "$total")
  done
  echo "$total"
}
echo "inbox reads: $users users, $rows delivered rows of history ($((rows / 2 / users)) notifications each)," \
  "$connections connections, ${seconds} s each; load $(cut -d' ' -f1-3 /proc/loadavg)"
# The subscriber tokens of the token phase, as a Lua table.
python3 - "$port" "$users" "$token_users" >"$work/tokens.lua" <<'PY'
import json, sys, urllib.request
port, users, wanted = (int(a) for a in sys.argv[1:])
step = max(1, users // wanted)
print("tokens = {")
for user in range(1, users + 1, step)[:wanted]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/users/{user}/token",
                                     headers={"Authorization": "Bearer bench-key"})
    print(f'  "{json.load(urllib.request.urlopen(request))["token"]}",')
print("}")
PY
for path in "notifications?limit=20" "notifications/unread-count" "inbox/unread-count"; do
  if [ "$path" = inbox/unread-count ]; then
    cat "$work/tokens.lua" - >"$work/random.lua" <<LUA
request = function()
  return wrk.format("GET", "/v1/inbox/unread-count", {["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)]})
end
LUA
    label="GET /v1/inbox/unread-count (a random one of $token_users subscriber tokens)"
  else
    cat >"$work/random.lua" <<LUA
request = function()
  return wrk.format("GET", "/v1/users/" .. math.random(1, $users) .. "/$path", {["Authorization"] = "Bearer bench-key"})
end
LUA
    label="GET /v1/users/{random}/$path"
  fi
  wrk -t2 -c"$connections" -d1s -s "$work/random.lua" "http://127.0.0.1:$port" >/dev/null  # warm-up
  c0=$(cpu_of $chopar) p0=$(cpu_of "$postmaster")
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/random.lua" "http://127.0.0.1:$port" \
    >"$work/wrk.txt"
  c1=$(cpu_of $chopar) p1=$(cpu_of "$postmaster")
  requests=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
  echo "== $label"
  grep -E 'Requests/sec|Non-2xx|Latency|  (50|99)%' "$work/wrk.txt" | sed 's/^/  /'
  awk -v n="$requests" -v c0="$c0" -v c1="$c1" -v p0="$p0" -v p1="$p1" \
    'BEGIN { printf "  CPU ms per 1,000 requests: chopar %.0f, PostgreSQL %.0f\n",
             1e6 * (c1 - c0) / n, 1e6 * (p1 - p0) / n }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
