#!/usr/bin/env bash
# Slow clients against a running chopar (docs/RELIABILITY.md, "Slow
# clients"): slowhttptest's slowloris (headers sent a few bytes at a time)
# and slow read (responses taken a few bytes at a time, tiny window), each
# while a normal client asks GET /healthz every 20 ms on a new connection;
# prints that client's latency percentiles per phase. Needs
# CHOPAR_TEST_DATABASE_URL (run under scripts/with-test-pg; `make
# slowhttp` does) and slowhttptest (scripts/install-deps).
#   bench/slow_clients.sh <chopar binary> [seconds per phase] [connections]
# Exits non-zero when a phase's p99 is 50 ms or more, or a probe failed.
set -euo pipefail
chopar=$1 seconds=${2:-60} connections=${3:-1000}
: "${CHOPAR_TEST_DATABASE_URL:?run under scripts/with-test-pg}"
work=$(mktemp -d /tmp/chopar-slow.XXXXXX)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
CHOPAR_DATABASE_URL=$CHOPAR_TEST_DATABASE_URL CHOPAR_SERVER_API_KEY=slow-key \
  CHOPAR_SERVER_LISTEN=127.0.0.1:$port CHOPAR_SERVER_DATA_DIR=$work/var \
  "$chopar" serve >"$work/serve.log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$work/serve.log"; exit 1; }

# GET /healthz every 20 ms on a new connection for $1 seconds; prints
# "probes p50 p99 max failures" (milliseconds).
probe() {
  python3 - "$port" "$1" <<'PY'
import http.client, sys, time
port, seconds = int(sys.argv[1]), float(sys.argv[2])
took, failures, end = [], 0, time.monotonic() + seconds
while time.monotonic() < end:
    start = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", "/healthz")
        ok = c.getresponse().status == 200
        c.close()
    except OSError:
        ok = False
    took.append((time.monotonic() - start) * 1000)
    failures += not ok
    time.sleep(0.02)
took.sort()
q = lambda p: took[min(len(took) - 1, int(p * len(took)))]
print(f"{len(took)} {q(0.5):.1f} {q(0.99):.1f} {took[-1]:.1f} {failures}")
PY
}

status=0
run_phase() {  # name, slowhttptest arguments…
  local name=$1
  shift
  slowhttptest "$@" -c "$connections" -r 200 -l "$seconds" -u "http://127.0.0.1:$port/healthz" \
    -p 5 >"$work/$name.log" 2>&1 &
  local attacker=$!
  sleep 5  # let the connections pile up
  read -r probes p50 p99 max failures < <(probe $((seconds - 8)))
  wait "$attacker" || true
  printf '%-10s %5d slow connections, %4d probes: p50 %6.1f ms, p99 %6.1f ms, max %6.1f ms, %d failed\n' \
    "$name" "$connections" "$probes" "$p50" "$p99" "$max" "$failures"
  # slowhttptest's own view: the most connections it held open at once, how
  # many the server closed, and whether its probe ever found it unavailable.
  local peak
  peak=$(sed 's/\x1b\[[0-9;]*m//g' "$work/$name.log" | awk '
    /^connected:/ { if ($2 > peak) peak = $2 }
    /^closed:/ { closed = $2 }
    /^service available:/ { if ($3 == "NO") down++ }
    END { printf "%d            slowhttptest: at most %d connected at once, %d closed by the server, %d reports of the service unavailable\n", peak, peak, closed, down }')
  echo "${peak#* }"
  # An attack that never connected (slowhttptest refused its arguments, or
  # could not reach the server) measured nothing: the phase fails.
  if [ "${peak%% *}" -eq 0 ]; then
    echo "           $name: slowhttptest never connected; its log:"
    sed 's/\x1b\[[0-9;]*m//g' "$work/$name.log" | tail -5
    status=1
  fi

  if [ "$failures" -ne 0 ] || awk -v p="$p99" 'BEGIN { exit !(p >= 50) }'; then status=1; fi
}

read -r probes p50 p99 max failures < <(probe 5)
printf '%-10s %5d slow connections, %4d probes: p50 %6.1f ms, p99 %6.1f ms, max %6.1f ms, %d failed\n' \
  quiet 0 "$probes" "$p50" "$p99" "$max" "$failures"
# Slowloris: unfinished headers, a line every 10 s.
run_phase slowloris -H -i 10 -s 8192
# Slow read: 10 pipelined requests per connection (slowhttptest's most), the
# responses read 32 bytes every 2 s through a 32-64 byte window.
run_phase slowread -X -w 32 -y 64 -n 2 -z 32 -k 10
exit $status
