#!/usr/bin/env bash
# Digests end to end (docs/BENCHMARKS.md "Digests"): USERS users × PER_USER
# notifications posted through POST /v1/notifications/batch (1000 per
# request, INFLIGHT in flight) to `chopar serve` (every channel a sink) on one
# throwaway PostgreSQL, in interleaved rounds of two types rendered from the
# same template:
#   plain   no workflow: one email delivery per notification;
#   digest  `digest: {window_seconds: WINDOW, key: "{{project}}"}`: every
#           notification of a user joins one window, and when it closes ONE
#           email delivery carries all PER_USER of them.
# Notification k goes to user 1 + k % USERS, so every user's notifications
# are spread over the whole posting: the window must outlast it (the script
# fails when it did not, as then the counts are wrong).
# For each run: the time from the first POST to the last delivery sent
# (`sent_at` in the database), the posting time, deliveries/s; for digests
# also the part after the first window closed. After each digest run the
# script CHECKS from the database: exactly USERS windows closed, each holding
# PER_USER items; exactly USERS digest deliveries per channel, all sent,
# each rendered with digest.count = PER_USER (its sink message's subject);
# no other delivery. After each plain run: USERS × PER_USER deliveries, all
# sent. Any mismatch exits non-zero.
#
#   bash bench/digest.sh                          # 10,000 users × 10
#   USERS=1000 WINDOW=15 bash bench/digest.sh     # a small run
#
# USERS (10000), PER_USER (10), WINDOW seconds (60), ROUNDS of (plain,
# digest) (2), INFLIGHT batch requests (4), BUILD_DIR (build); SKIP_BUILD=1
# uses the binaries already built. Logs stay in the folder printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
users=${USERS:-10000}
per_user=${PER_USER:-10}
window=${WINDOW:-60}
rounds=${ROUNDS:-2}
inflight=${INFLIGHT:-4}
total=$((users * per_user))

source bench/notify_bench_lib.sh
rerun_under_test_pg_with_statements "$@"

logs=$(mktemp -d /tmp/chopar-digest-bench.XXXXXX)
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg); $users users × $per_user" \
  "notifications, window $window s, $rounds rounds; logs in $logs"
admin=$CHOPAR_TEST_DATABASE_URL
url=$(sed -E 's|^(postgresql://[^/]*/)[^?]*|\1digest_bench|' <<<"$admin")
psql -qX "$admin" -c "CREATE DATABASE digest_bench" >/dev/null
sql() { psql -qXAt -v ON_ERROR_STOP=1 "$url" "$@"; }
now() { date +%s.%N; }

CHOPAR_DATABASE_URL=$url "$build_dir/chopar" migrate >"$logs/migrate.log" 2>&1
sql -c "INSERT INTO chopar.users (id, email)
        SELECT g, 'user' || g || '@bench.example' FROM generate_series(1, $users) g"

source bench/serve_lib.sh
# Plain sends ten emails an hour to every user: no hourly limit may skip one.
start_serve "$url" "$logs" CHOPAR_LIMITS_HOURLY_EMAIL=1000000000

# The same texts for both types; the digest's email lists the window.
template() {
  jq -n --argjson digest "$1" '{default_locale: "en", digest: $digest, locales: {en: {
    title: "{{author}} commented on {{project}}", body: "{{text}}",
    email: {subject: "{{#digest.count}}{{digest.count}} new comments{{/digest.count}}{{^digest.count}}{{author}} commented{{/digest.count}} on {{project}}",
            text: "{{#digest.items}}{{data.author}}: {{data.text}}\n{{/digest.items}}{{^digest.items}}{{text}}{{/digest.items}}"}}}}'
}
for type in plain digest; do
  settings=null
  [ $type = digest ] && settings="{\"window_seconds\": $window, \"key\": \"{{project}}\"}"
  status=$(template "$settings" | api -o "$logs/template-$type.json" -w '%{http_code}' \
    -X PUT "http://127.0.0.1:$port/v1/templates/bench.$type" --data-binary @-)
  [ "$status" = 200 ] || [ "$status" = 201 ] || { cat "$logs/template-$type.json"; exit 1; }
done

# The request bodies of a type: batches of 1000, notification k to user 1 + k % users.
bodies() {
  mkdir -p "$logs/bodies-$1"
  awk -v type="bench.$1" -v users="$users" -v total="$total" -v dir="$logs/bodies-$1" 'BEGIN {
    for (begin = 0; begin < total; begin += 1000) {
      file = sprintf("%s/%07d.json", dir, begin)
      printf "{\"notifications\": [" > file
      for (k = begin; k < begin + 1000 && k < total; k++)
        printf "%s{\"user_id\": %d, \"type\": \"%s\", \"channels\": [\"email\"], \"data\": {\"project\": \"alpha\", \"author\": \"user%d\", \"text\": \"comment %d\"}}",
          (k > begin ? ", " : ""), 1 + k % users, type, k % 97, k > file
      printf "]}\n" > file
      close(file)
    }
  }'
}
bodies plain
bodies digest

clean() {
  sql -c "TRUNCATE chopar.sink_messages, chopar.deliveries, chopar.digest_items, chopar.digests,
                   chopar.notifications CASCADE" >/dev/null
  sql -c "VACUUM ANALYZE" >/dev/null
}
pending() {
  sql -c "SELECT (SELECT count(*) FROM chopar.digests WHERE status = 'open')
               + (SELECT count(*) FROM chopar.deliveries WHERE status IN ('queued', 'sending'))"
}
fail() { echo "CHECK FAILED ($1): $2" >&2; exit 1; }

# One run of a type: post every batch, wait until nothing is open or pending,
# check the counts, print "<end to end s> <posting s> <deliveries> <after first close s>".
run() {
  local type=$1 log=$2 t0 t_posted figures
  t0=$(now)
  find "$logs/bodies-$type" -name '*.json' | sort | xargs -P "$inflight" -I{} \
    curl -s -o {}.response -w '%{http_code}\n' -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' --data-binary @{} \
    "http://127.0.0.1:$port/v1/notifications/batch" >"$log.status"
  t_posted=$(now)
  [ "$(grep -vc '^200$' "$log.status")" = 0 ] || fail "$type" "batch requests not 200: $(sort "$log.status" | uniq -c | tr '\n' ' ')"
  local deadline=$(($(date +%s) + window + 600))
  while [ "$(pending)" != 0 ]; do
    [ "$(date +%s)" -lt $deadline ] || fail "$type" "still pending 600 s after the window"
    sleep 0.2
  done
  sql -F ' ' >"$log" <<SQL
SELECT 'notifications', count(*) FROM chopar.notifications;
SELECT 'deliveries', count(*), count(*) FILTER (WHERE status = 'sent'), count(DISTINCT channel),
       count(*) FILTER (WHERE digest_id IS NOT NULL) FROM chopar.deliveries;
SELECT 'per_channel_min_max', min(n), max(n) FROM (SELECT channel, count(*) n FROM chopar.deliveries GROUP BY channel) c;
SELECT 'digests', count(*), count(*) FILTER (WHERE status = 'closed'),
       count(*) FILTER (WHERE item_count = $per_user) FROM chopar.digests;
SELECT 'digest_items_per_window_min_max', coalesce(min(n), 0), coalesce(max(n), 0)
FROM (SELECT digest_id, count(*) n FROM chopar.digest_items GROUP BY digest_id) w;
SELECT 'digest_users', count(DISTINCT user_id) FROM chopar.digests;
SELECT 'sink_count_ok', count(*) FILTER (WHERE s.subject = '$per_user new comments on alpha'), count(*)
FROM chopar.sink_messages s JOIN chopar.deliveries d ON d.id = s.delivery_id;
SELECT 'last_sent', extract(epoch FROM max(sent_at))
FROM chopar.deliveries;
SELECT 'first_close', coalesce(extract(epoch FROM min(closes_at)), 0) FROM chopar.digests;
SQL
  field() { awk -v name="$1" -v i="$2" '$1 == name { print $(i + 1) }' "$log"; }
  if [ "$type" = digest ]; then
    [ "$(field notifications 1)" = $total ] || fail digest "notifications $(field notifications 1), expected $total"
    [ "$(field digests 1)" = $users ] && [ "$(field digests 2)" = $users ] && [ "$(field digests 3)" = $users ] ||
      fail digest "windows (all, closed, holding $per_user): $(field digests 1) $(field digests 2) $(field digests 3), expected $users each"
    [ "$(field digest_users 1)" = $users ] || fail digest "windows of $(field digest_users 1) users, expected $users"
    [ "$(field digest_items_per_window_min_max 1)" = $per_user ] && [ "$(field digest_items_per_window_min_max 2)" = $per_user ] ||
      fail digest "items per window $(field digest_items_per_window_min_max 1)..$(field digest_items_per_window_min_max 2), expected $per_user"
    [ "$(field deliveries 1)" = $users ] && [ "$(field deliveries 2)" = $users ] && [ "$(field deliveries 4)" = $users ] ||
      fail digest "deliveries (all, sent, of a digest): $(field deliveries 1) $(field deliveries 2) $(field deliveries 4), expected $users each"
    [ "$(field per_channel_min_max 1)" = $users ] && [ "$(field per_channel_min_max 2)" = $users ] ||
      fail digest "deliveries per channel $(field per_channel_min_max 1)..$(field per_channel_min_max 2), expected $users"
    [ "$(field sink_count_ok 1)" = $users ] && [ "$(field sink_count_ok 2)" = $users ] ||
      fail digest "sink messages saying '$per_user new comments': $(field sink_count_ok 1) of $(field sink_count_ok 2), expected $users"
  else
    [ "$(field notifications 1)" = $total ] && [ "$(field deliveries 1)" = $total ] && [ "$(field deliveries 2)" = $total ] &&
      [ "$(field deliveries 4)" = 0 ] && [ "$(field digests 1)" = 0 ] && [ "$(field sink_count_ok 2)" = $total ] ||
      fail plain "notifications, deliveries, sent: $(field notifications 1) $(field deliveries 1) $(field deliveries 2), expected $total each"
  fi
  awk -v t0="$t0" -v tp="$t_posted" -v last="$(field last_sent 1)" -v closed="$(field first_close 1)" \
      -v n="$(field deliveries 1)" 'BEGIN {
    printf "%.2f %.2f %d %.2f\n", last - t0, tp - t0, n, (closed > 0 ? last - closed : 0) }'
}

results=$logs/results.txt
: >"$results"
for round in $(seq "$rounds"); do
  for type in plain digest; do
    echo "round $round: $type (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    figures=$(run $type "$logs/$round-$type.log") || exit 1
    echo "$round $type $figures" >>"$results"
    clean
  done
done
kill $chopar
wait $chopar || true

echo
echo "Summary ($users users × $per_user notifications = $total, email (sink), window $window s;" \
  "times from the first POST to the last delivery sent)"
printf '%-6s %-7s %14s %11s %11s %15s %22s\n' round type "end to end, s" "posting, s" deliveries \
  "deliveries/s" "after 1st close, s"
awk '{ printf "%-6s %-7s %14.2f %11.2f %11d %15.0f %22s\n", $1, $2, $3, $4, $5, $5 / $3,
       ($2 == "digest" ? sprintf("%.2f", $6) : "-") }' "$results"
awk -v w="$window" '$2 == "plain" { p[$1] = $3; pp[$1] = $4 } $2 == "digest" { d[$1] = $3; dp[$1] = $4 }
  END { for (r in p) printf "round %s: digest / plain: end to end %.2f, minus the %d s window %.2f, posting %.2f\n",
        r, d[r] / p[r], w, (d[r] - w) / p[r], dp[r] / pp[r] }' "$results" | sort
echo "every check passed: $users digest deliveries per channel, each with digest.count $per_user;" \
  "$total plain deliveries"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
