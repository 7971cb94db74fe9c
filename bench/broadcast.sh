#!/usr/bin/env bash
# A broadcast to USERS subscribers of one topic, two sink channels each
# (email and SMS), against one throwaway PostgreSQL (docs/BENCHMARKS.md
# "Broadcasts"). In one run, interleaved:
#   1. the raw-SQL ceiling: the same dedup keys, notification and delivery rows written
#      by plain INSERT … SELECT batches of BATCH recipients, one transaction
#      each (a procedure that COMMITs per batch), chopar not running;
#   2. on ceiling 1's rows, marked sent long ago (the history it starts on),
#      `chopar serve`: BASELINE single POST /v1/notifications, one every
#      200 ms, with no broadcast running; then POST /v1/broadcasts, the
#      fan-out rate (recipients/s from the 202 to status done), the time
#      until the last delivery is sent, the same single POSTs during the
#      broadcast (their latency, and how long until their delivery was
#      sent); then BASELINE single POSTs again. chopar's RSS once a second;
#   3. the ceiling again. The fan-out rate is reported against the mean of
#      the two ceilings.
# Ceilings 1 and 2 are minutes apart, and on a shared machine the load
# changes in between; so the ceiling is also measured right before the
# broadcast and right after its fan-out is done (ceilings A and B), in a
# second database of the same cluster seeded the same way, with the same
# history, which chopar does not see. B runs beside the worker sending the
# broadcast's deliveries and the probes, as the fan-out did. The fan-out is
# reported against A and B first.
#
#   bash bench/broadcast.sh                 # USERS=1000000 by default
#   USERS=200000 bash bench/broadcast.sh    # what a loaded 2-core machine finishes in minutes
#
# The single POSTs during the broadcast are reported against the baseline
# ones of the same run (before and after it, pooled): ratios, not absolute
# figures, on a shared machine.
#
# BASELINE (single POSTs before and after, default 50 each), BATCH ([broadcast] batch, default 2000), PACE ([broadcast]
# deliveries_per_second, default 5000), SEND=0 (the broadcast's deliveries
# after its first batch fall due days later — pace 0.001/s — and the script
# does not wait for them: the fan-out without the delivery worker sending
# beside it, for how much of the gap to the ceiling the worker is),
# BUILD_DIR (default build),
# SKIP_BUILD=1 uses the binary already built. Logs stay in the folder printed
# first.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
users=${USERS:-1000000}
batch=${BATCH:-2000}
pace=${PACE:-5000}
send=${SEND:-1}
[ "$send" = 1 ] || pace=0.001
baseline=${BASELINE:-50}

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
ceiling_url=${admin/\/postgres\?/\/ceiling?}
psql -qX "$admin" -c "CREATE DATABASE bench" -c "CREATE DATABASE ceiling" >/dev/null
sql() { psql -qXAt -v ON_ERROR_STOP=1 "$url" "$@"; }
now() { date +%s.%N; }

CHOPAR_DATABASE_URL=$url "$build_dir/chopar" migrate >"$logs/migrate.log" 2>&1
CHOPAR_DATABASE_URL=$ceiling_url "$build_dir/chopar" migrate >>"$logs/migrate.log" 2>&1
# Subscribers 1..users (SMS switched on: it is off by default); users+1 ..
# users+2000 are the probes of single notifications during the broadcast,
# users+2001 .. users+2000+2*BASELINE those of the baseline; none subscribed.
seed=$(cat <<SQL
INSERT INTO chopar.users (id, email, phone, preferences)
SELECT i, 'u' || i || '@example.uz', '+99890' || lpad(i::text, 7, '0'), '{"sms": true}'
FROM generate_series(1, $users + 2000 + 2 * $baseline) i;
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
    ), k AS (
      -- The key first, as chopar's fan-out writes it: notification_dedup is
      -- its arbiter, and the notification's id is drawn with it.
      INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
      SELECT user_id, tag, nextval(pg_get_serial_sequence('chopar.notifications', 'id')), now()
      FROM r
      ON CONFLICT (user_id, dedup_key) DO NOTHING
      RETURNING user_id, notification_id
    ), n AS (
      INSERT INTO chopar.notifications (id, user_id, type, title, body, dedup_key, created_at)
      OVERRIDING SYSTEM VALUE
      SELECT notification_id, user_id, 'release.note', 'Yangi versiya', '2.0 chiqdi', tag, now()
      FROM k
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
)
sql <<<"$seed"
psql -qXAt -v ON_ERROR_STOP=1 "$ceiling_url" <<<"$seed"

clean() { sql -c "TRUNCATE chopar.deliveries, chopar.notifications, chopar.notification_dedup, chopar.broadcasts CASCADE" >/dev/null; sql -c "VACUUM ANALYZE" >/dev/null; }
# ceiling [<database url> <dedup key>]: one raw fan-out to every subscriber;
# prints its rate.
ceiling() {
  local start end
  start=$(now)
  psql -qXAt -v ON_ERROR_STOP=1 "${1:-$url}" -c "CALL public.raw_fan_out($batch, '${2:-raw}')"
  end=$(now)
  awk -v n="$users" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f\n", n / (e - s) }'
}

echo "ceiling 1 ..." >&2
ceiling1=$(ceiling)
# Ceiling 1's rows stay as the history chopar starts on, sent two hours ago
# (outside the hourly limits' window): a service never starts a broadcast
# on empty tables, and statements first planned on empty tables keep plans
# that scan them.
sql -c "UPDATE chopar.deliveries SET status = 'sent', claimed_at = now() - interval '2 hours',
          sent_at = now() - interval '2 hours'" >/dev/null
sql -c "VACUUM ANALYZE" >/dev/null
# The same history in the ceiling database (not timed).
psql -qXAt -v ON_ERROR_STOP=1 "$ceiling_url" -c "CALL public.raw_fan_out($batch, 'raw')" \
  -c "UPDATE chopar.deliveries SET status = 'sent', claimed_at = now() - interval '2 hours',
        sent_at = now() - interval '2 hours'" -c "VACUUM ANALYZE" >/dev/null

echo "chopar ..." >&2
source bench/serve_lib.sh
start_serve "$url" "$logs" CHOPAR_BROADCAST_BATCH=$batch CHOPAR_BROADCAST_DELIVERIES_PER_SECOND=$pace

(while kill -0 $chopar 2>/dev/null; do
   echo "$(now) $(ps -o rss= -p $chopar)"; sleep 1; done) >"$logs/rss.log" 2>/dev/null &
sampler=$!

# probe <first user> <last user> <type> <log>: one single POST
# /v1/notifications every 200 ms to users first..last, while $logs/probing
# exists; "<http code> <seconds>" per line in <log>.
probe() {
  local user=$1
  while [ -e "$logs/probing" ] && [ "$user" -le "$2" ]; do
    api -o /dev/null -w '%{http_code} %{time_total}\n' -X POST "http://127.0.0.1:$port/v1/notifications" \
      -d "{\"user_id\": $user, \"type\": \"$3\", \"title\": \"ping\", \"channels\": [\"email\"]}"
    user=$((user + 1)); sleep 0.2
  done >>"$4"
}
# baseline <first user>: BASELINE single POSTs with no broadcast running.
baseline() {
  touch "$logs/probing"
  probe "$1" $(($1 + baseline - 1)) probe.idle "$logs/baseline.log"
  rm -f "$logs/probing"
}

echo "baseline before ..." >&2
baseline $((users + 2001))
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "ceiling A ..." >&2
ceiling_a=$(ceiling "$ceiling_url" raw-a)

t0=$(now)
id=$(api -X POST "http://127.0.0.1:$port/v1/broadcasts" -d '{"topic": "everyone",
  "notification": {"type": "release.note", "title": "Yangi versiya", "body": "2.0 chiqdi",
                   "channels": ["email", "sms"]}}' | sed -E 's/.*"id":([0-9]+).*/\1/')
touch "$logs/probing"
probe $((users + 1)) $((users + 2000)) probe.single "$logs/probes.log" &
prober=$!

while :; do
  status=$(api "http://127.0.0.1:$port/v1/broadcasts/$id")
  case $status in *'"status":"done"'*) break ;; esac
  sleep 0.2
done
t_done=$(now)
echo "$status" >"$logs/broadcast.json"
echo "ceiling B ..." >&2
ceiling_b=$(ceiling "$ceiling_url" raw-b)
# Until every delivery is sent (the probes keep running meanwhile): once a
# second, whether a queued or a sending row is left, from their partial
# indexes. (Counting them every half second scanned the whole table and took
# a fifth of a core from the probes this measures; the time of the last
# delivery comes from sent_at, not from this loop.)
while [ "$send" = 1 ] && [ "$(sql -c "SELECT EXISTS (SELECT 1 FROM chopar.deliveries WHERE status = 'queued')
                       OR EXISTS (SELECT 1 FROM chopar.deliveries WHERE status = 'sending')")" = t ]; do
  sleep 1
done
rm -f "$logs/probing"
wait $prober
load_during=$(cut -d' ' -f1-3 /proc/loadavg)
echo "baseline after ..." >&2
baseline $((users + 2001 + baseline))
kill $chopar; wait $chopar || true
kill $sampler 2>/dev/null || true

sql -F ' ' >"$logs/figures.txt" <<SQL
SELECT 'last_sent', extract(epoch FROM max(d.sent_at) - (SELECT created_at FROM chopar.broadcasts WHERE id = $id))
FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = d.notification_id WHERE n.dedup_key = 'broadcast:$id';
SELECT CASE n.type WHEN 'probe.single' THEN 'probe_delivery' ELSE 'baseline_delivery' END,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.sent_at - n.created_at)),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.sent_at - n.created_at)),
       max(extract(epoch FROM d.sent_at - n.created_at)),
       count(*) FILTER (WHERE d.sent_at - n.created_at > interval '1 second'), count(*)
FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = d.notification_id
WHERE n.type IN ('probe.single', 'probe.idle') GROUP BY n.type;
SELECT 'broadcast_deliveries', count(*) FILTER (WHERE d.status = 'sent'), count(*)
FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = d.notification_id WHERE n.dedup_key = 'broadcast:$id';
SQL
clean
echo "ceiling 2 ..." >&2
ceiling2=$(ceiling)

fan_out=$(awk -v n="$users" -v s="$t0" -v e="$t_done" 'BEGIN { printf "%.0f", n / (e - s) }')
echo
echo "Summary ($users recipients, 2 sink channels each, batch $batch, pace $pace deliveries/s)"
awk -v f="$fan_out" -v a="$ceiling_a" -v b="$ceiling_b" -v c="$ceiling1" -v d="$ceiling2" 'BEGIN {
  printf "  fan-out: %d recipients/s; raw-SQL ceiling right before and after it %d and %d → %.1f %% of their mean\n", f, a, b, 200 * f / (a + b)
  printf "  (ceilings 1 and 2, minutes apart, chopar not running: %d and %d → %.1f %%)\n", c, d, 200 * f / (c + d) }'
awk '$1 == "last_sent" { printf "  last delivery sent: %.1f s after the broadcast was created\n", $2 }' "$logs/figures.txt"
awk '$1 == "broadcast_deliveries" { printf "  broadcast deliveries sent: %d of %d\n", $2, $3 }' "$logs/figures.txt"
# percentiles <log>: "<count> <p50> <p99> <max> <non-2xx>" of its seconds.
percentiles() {
  sort -k2 -n "$1" | awk '{ t[NR] = $2; if ($1 !~ /^2/) bad++ }
    END { printf "%d %.4f %.4f %.4f %d\n", NR, t[int(NR * 0.5 + 0.5)], t[int(NR * 0.99 + 0.5)], t[NR], bad }'
}
read -r n_during p50_during p99_during max_during bad_during < <(percentiles "$logs/probes.log")
read -r n_idle p50_idle p99_idle max_idle bad_idle < <(percentiles "$logs/baseline.log")
echo "  load average: before the broadcast $load_before; at its last delivery $load_during"
awk -v n="$n_during" -v a="$p50_during" -v b="$p99_during" -v c="$max_during" -v bad="$bad_during" \
    -v m="$n_idle" -v x="$p50_idle" -v y="$p99_idle" -v z="$max_idle" -v badi="$bad_idle" 'BEGIN {
  printf "  single POST /v1/notifications during it: %d, p50 %.1f ms, p99 %.1f ms, max %.1f ms, non-2xx %d\n", n, 1000 * a, 1000 * b, 1000 * c, bad
  printf "  the same with no broadcast (before and after): %d, p50 %.1f ms, p99 %.1f ms, max %.1f ms, non-2xx %d\n", m, 1000 * x, 1000 * y, 1000 * z, badi
  printf "  during / baseline: p50 %.2f×, p99 %.2f×\n", a / x, b / y }'
awk '$1 == "probe_delivery" { printf "  their deliveries sent after: p50 %.2f s, p99 %.2f s, max %.2f s; over 1 s: %d of %d\n", $2, $3, $4, $5, $6 }
     $1 == "baseline_delivery" { printf "  baseline deliveries sent after: p50 %.2f s, p99 %.2f s, max %.2f s; over 1 s: %d of %d\n", $2, $3, $4, $5, $6 }' "$logs/figures.txt"
# RSS at every tenth of the run: flat means no per-recipient state.
awk 'NR > 2 { rss[++n] = $2 }
  END { printf "  chopar RSS (MiB) at each tenth of the run:"
        for (i = 1; i <= 10; i++) printf " %.1f", rss[int(n * i / 10)] / 1024
        printf " (%d samples)\n", n }' "$logs/rss.log"
