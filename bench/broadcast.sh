#!/usr/bin/env bash
# A broadcast to USERS subscribers of one topic, two sink channels each
# (email and SMS), against one throwaway PostgreSQL (docs/BENCHMARKS.md
# "Broadcasts"). In one run, interleaved:
#   1. the raw-SQL ceiling: the same notification and delivery rows written
#      by plain INSERT … SELECT batches of BATCH recipients, one transaction
#      each (a procedure that COMMITs per batch), chopar not running;
#   2. `chopar serve`: POST /v1/broadcasts, the fan-out rate (recipients/s
#      from the 202 to status done), the time until the last delivery is
#      sent, a single POST /v1/notifications every 200 ms during the
#      broadcast (its latency, and how long until its delivery was sent),
#      chopar's RSS once a second;
#   3. the ceiling again. The fan-out rate is reported against the mean of
#      the two ceilings.
#
#   bash bench/broadcast.sh                 # USERS=1000000 by default
#   USERS=200000 bash bench/broadcast.sh    # what a loaded 2-core machine finishes in minutes
#
# BATCH ([broadcast] batch, default 2000), PACE ([broadcast]
# deliveries_per_second, default 5000), BUILD_DIR (default build),
# SKIP_BUILD=1 uses the binary already built. Logs stay in the folder printed
# first.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
users=${USERS:-1000000}
batch=${BATCH:-2000}
pace=${PACE:-5000}

if [ -z "${CHOPAR_TEST_DATABASE_URL:-}" ]; then
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    cmake --build "$build_dir" --target chopar -j "${JOBS:-2}" >/dev/null
  fi
  exec bash scripts/with-test-pg bash "$0" "$@"
fi

logs=$(mktemp -d /tmp/chopar-broadcast-bench.XXXXXX)
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); users $users, batch $batch, pace $pace/s; logs in $logs"
admin=$CHOPAR_TEST_DATABASE_URL
url=${admin/\/postgres\?/\/bench?}
psql -qX "$admin" -c "CREATE DATABASE bench" >/dev/null
sql() { psql -qXAt -v ON_ERROR_STOP=1 "$url" "$@"; }
now() { date +%s.%N; }

CHOPAR_DATABASE_URL=$url "$build_dir/chopar" migrate >"$logs/migrate.log" 2>&1
# Subscribers 1..users (SMS switched on: it is off by default); users+1 ..
# users+2000 are the probes of single notifications, not subscribed.
sql <<SQL
INSERT INTO chopar.users (id, email, phone, preferences)
SELECT i, 'u' || i || '@example.uz', '+99890' || lpad(i::text, 7, '0'), '{"sms": true}'
FROM generate_series(1, $users + 2000) i;
INSERT INTO chopar.topics (key, name) VALUES ('everyone', 'Everyone');
INSERT INTO chopar.topic_subscribers (topic, user_id)
SELECT 'everyone', i FROM generate_series(1, $users) i;
VACUUM ANALYZE;
CREATE PROCEDURE public.raw_fan_out(batch int, tag text) LANGUAGE plpgsql AS \$\$
DECLARE
  done_to bigint := 0;
  last_id bigint;
BEGIN
  LOOP
    WITH r AS MATERIALIZED (
      SELECT user_id FROM chopar.topic_subscribers
      WHERE topic = 'everyone' AND user_id > done_to ORDER BY user_id LIMIT batch
    ), n AS (
      INSERT INTO chopar.notifications (user_id, type, title, body, dedup_key, created_at)
      SELECT user_id, 'release.note', 'Yangi versiya', '2.0 chiqdi', tag, now() FROM r
      ON CONFLICT (user_id, dedup_key) DO NOTHING
      RETURNING id, user_id
    ), d AS (
      INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, next_attempt_at,
                                     created_at, updated_at)
      SELECT n.id, n.user_id, c.channel, 'queued', now(), now(), now()
      FROM n CROSS JOIN (VALUES ('email'), ('sms')) AS c(channel)
      RETURNING 1
    )
    SELECT max(user_id) + 0 * (SELECT count(*) FROM d) INTO last_id FROM r;
    EXIT WHEN last_id IS NULL;
    done_to := last_id;
    COMMIT;
  END LOOP;
END
\$\$;
SQL

clean() { sql -c "TRUNCATE chopar.deliveries, chopar.notifications, chopar.broadcasts CASCADE" >/dev/null; sql -c "VACUUM ANALYZE" >/dev/null; }
ceiling() {
  local start end
  start=$(now)
  sql -c "CALL public.raw_fan_out($batch, 'raw')"
  end=$(now)
  awk -v n="$users" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f\n", n / (e - s) }'
}

echo "ceiling 1 ..." >&2
ceiling1=$(ceiling)
clean

echo "chopar ..." >&2
source bench/serve_lib.sh
start_serve "$url" "$logs" CHOPAR_BROADCAST_BATCH=$batch CHOPAR_BROADCAST_DELIVERIES_PER_SECOND=$pace

(while kill -0 $chopar 2>/dev/null; do
   echo "$(now) $(ps -o rss= -p $chopar)"; sleep 1; done) >"$logs/rss.log" 2>/dev/null &
sampler=$!

t0=$(now)
id=$(api -X POST "http://127.0.0.1:$port/v1/broadcasts" -d '{"topic": "everyone",
  "notification": {"type": "release.note", "title": "Yangi versiya", "body": "2.0 chiqdi",
                   "channels": ["email", "sms"]}}' | sed -E 's/.*"id":([0-9]+).*/\1/')
touch "$logs/probing"
(probe=$((users + 1))
 while [ -e "$logs/probing" ] && [ $probe -le $((users + 2000)) ]; do
   api -o /dev/null -w '%{http_code} %{time_total}\n' -X POST "http://127.0.0.1:$port/v1/notifications" \
     -d "{\"user_id\": $probe, \"type\": \"probe.single\", \"title\": \"ping\", \"channels\": [\"email\"]}"
   probe=$((probe + 1)); sleep 0.2
 done) >"$logs/probes.log" &
prober=$!

while :; do
  status=$(api "http://127.0.0.1:$port/v1/broadcasts/$id")
  case $status in *'"status":"done"'*) break ;; esac
  sleep 0.2
done
t_done=$(now)
echo "$status" >"$logs/broadcast.json"
# Until every delivery is sent (the probes keep running meanwhile).
while [ "$(sql -c "SELECT count(*) FROM chopar.deliveries WHERE status IN ('queued', 'sending')")" != 0 ]; do
  sleep 0.5
done
rm -f "$logs/probing"
wait $prober
kill $chopar; wait $chopar || true
kill $sampler 2>/dev/null || true

sql -F ' ' >"$logs/figures.txt" <<SQL
SELECT 'last_sent', extract(epoch FROM max(d.sent_at) - (SELECT created_at FROM chopar.broadcasts WHERE id = $id))
FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = d.notification_id WHERE n.type = 'release.note';
SELECT 'probe_delivery_p50_p99_max',
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.sent_at - n.created_at)),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.sent_at - n.created_at)),
       max(extract(epoch FROM d.sent_at - n.created_at)),
       count(*) FILTER (WHERE d.sent_at - n.created_at > interval '1 second'), count(*)
FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = d.notification_id WHERE n.type = 'probe.single';
SELECT 'broadcast_deliveries', count(*) FILTER (WHERE d.status = 'sent'), count(*)
FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = d.notification_id WHERE n.type = 'release.note';
SQL
clean
echo "ceiling 2 ..." >&2
ceiling2=$(ceiling)

fan_out=$(awk -v n="$users" -v s="$t0" -v e="$t_done" 'BEGIN { printf "%.0f", n / (e - s) }')
echo
echo "Summary ($users recipients, 2 sink channels each, batch $batch, pace $pace deliveries/s)"
awk -v f="$fan_out" -v a="$ceiling1" -v b="$ceiling2" 'BEGIN {
  printf "  fan-out: %d recipients/s; raw-SQL ceiling %d and %d → %.1f %% of their mean\n", f, a, b, 200 * f / (a + b) }'
awk '$1 == "last_sent" { printf "  last delivery sent: %.1f s after the broadcast was created\n", $2 }' "$logs/figures.txt"
awk '$1 == "broadcast_deliveries" { printf "  broadcast deliveries sent: %d of %d\n", $2, $3 }' "$logs/figures.txt"
sort -k2 -n "$logs/probes.log" | awk '{ t[NR] = $2; if ($1 !~ /^2/) bad++ }
  END { printf "  single POST /v1/notifications during it: %d, p50 %.1f ms, p99 %.1f ms, max %.1f ms, non-2xx %d\n",
        NR, 1000 * t[int(NR * 0.5 + 0.5)], 1000 * t[int(NR * 0.99 + 0.5)], 1000 * t[NR], bad }'
awk '$1 == "probe_delivery_p50_p99_max" { printf "  their deliveries sent after: p50 %.2f s, p99 %.2f s, max %.2f s; over 1 s: %d of %d\n", $2, $3, $4, $5, $6 }' "$logs/figures.txt"
awk 'NR > 2 { if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2; last = $2 }
  END { printf "  chopar RSS: min %.1f MiB, max %.1f MiB, last %.1f MiB (%d samples)\n", min / 1024, max / 1024, last / 1024, NR }' "$logs/rss.log"
