-- What the builtin report statistics cost over a large history, against the
-- least any report must read: the same period's notifications and their
-- deliveries, only counted. And what the notifications_created index (the
-- one the statistics need) costs every notification insert.
-- Run: bash bench/reports.sh   (docs/BENCHMARKS.md "Report statistics").
-- psql variables: days (history length), per_day (notifications a day).
\set ON_ERROR_STOP on
SET search_path = chopar;

-- History: :per_day notifications a day for :days days up to now, over 5,000
-- users and 12 types, each with an email and a Telegram delivery (90 % sent,
-- 7 % failed with one of three reasons, 3 % skipped).
INSERT INTO users (id, email) SELECT g, 'u' || g || '@example.uz' FROM generate_series(1, 5000) g;
\echo generating :days days of :per_day notifications a day ...
INSERT INTO notifications (user_id, type, title, created_at)
SELECT 1 + g % 5000, (ARRAY['task.due', 'task.assigned', 'task.done', 'comment.new', 'comment.reply', 'order.paid',
               'order.shipped', 'order.late', 'pill.reminder', 'invoice.due', 'report.weekly', 'login.new'])[1 + g % 12], 'Muddat yaqin',
       now() - make_interval(secs => (g::float8 / :per_day) * 86400)
FROM generate_series(1, :days * :per_day) g;
INSERT INTO deliveries (notification_id, user_id, channel, status, claimed_at, sent_at, last_error,
                        created_at)
SELECT n.id, n.user_id, c.channel,
       CASE WHEN n.id % 100 < 90 THEN 'sent' WHEN n.id % 100 < 97 THEN 'failed' ELSE 'skipped' END,
       n.created_at, CASE WHEN n.id % 100 < 90 THEN n.created_at + make_interval(secs => n.id % 7) END,
       CASE WHEN n.id % 100 BETWEEN 90 AND 96 THEN 'provider said ' || (n.id % 3) END, n.created_at
FROM notifications n CROSS JOIN (VALUES ('email'), ('telegram')) c(channel);
VACUUM ANALYZE notifications;
VACUUM ANALYZE deliveries;
SELECT count(*) AS notifications FROM notifications;
SELECT count(*) AS deliveries FROM deliveries;

\i :summary_prepare
\i :anomaly_prepare
-- The floor: the period's rows found and counted, nothing computed.
PREPARE floor_rows(timestamptz, timestamptz) AS
  SELECT count(*) FROM notifications n JOIN deliveries d ON d.notification_id = n.id
  WHERE n.created_at >= $1 AND n.created_at < $2;

\set week_start '(date_trunc(''week'', now()) - interval ''7 days'')'
\set week_end 'date_trunc(''week'', now())'
\set today 'date_trunc(''day'', now())'
-- notifications_created is BRIN (migration 0038); it was a B-tree on the
-- same column before. The statistics run on one, then twice on the other
-- built in its place, and so on: BRIN, B-tree, B-tree, BRIN, BRIN, B-tree.
-- Results go to /dev/null; the times to the terminal.
\set measure 'EXECUTE summary(' :week_start ', ' :week_end ', 5); EXECUTE floor_rows(' :week_start ', ' :week_end '); EXECUTE anomaly(' :today ', now(), ' :today ' - interval ''7 days'', now() - interval ''7 days'', ' :today ' - interval ''14 days'', now() - interval ''14 days'');'
\set to_btree 'CREATE INDEX notifications_created_btree ON notifications (created_at); DROP INDEX notifications_created; ANALYZE notifications;'
\set to_brin 'CREATE INDEX notifications_created ON notifications USING brin (created_at) WITH (autosummarize = on); DROP INDEX notifications_created_btree; ANALYZE notifications;'
\echo == the last full week: builtin summary, then the floor; then today so far and the same hours one and two weeks before: anomaly metrics; with notifications_created as BRIN and as a B-tree, in turn
\timing on
\o /dev/null
\echo -- BRIN: summary, floor, anomaly
:measure
\echo -- to B-tree: create, drop, analyze
:to_btree
\echo -- B-tree: summary, floor, anomaly (twice)
:measure
:measure
\echo -- to BRIN: create, drop, analyze
:to_brin
\echo -- BRIN: summary, floor, anomaly (twice)
:measure
:measure
\echo -- to B-tree: create, drop, analyze
:to_btree
\echo -- B-tree: summary, floor, anomaly
:measure
\echo -- back to BRIN
:to_brin
\o
\timing off
\echo == the plans (index-driven: no Seq Scan on notifications or deliveries)
EXPLAIN (COSTS OFF) EXECUTE summary(:week_start, :week_end, 5);
EXPLAIN (COSTS OFF) EXECUTE anomaly(:today, now(), :today - interval '7 days', now() - interval '7 days',
                :today - interval '14 days', now() - interval '14 days');

\echo == what the created_at index costs inserts: 200,000 notifications in batches of 500 into copies of the table without it, with it (BRIN) and with the B-tree it was (interleaved)
CREATE TABLE plain_n (LIKE notifications INCLUDING ALL);
CREATE TABLE brin_n (LIKE notifications INCLUDING ALL);
CREATE TABLE btree_n (LIKE notifications INCLUDING ALL);
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE tablename = 'brin_n' AND indexdef LIKE '%USING brin (created_at)%') THEN
    RAISE EXCEPTION 'brin_n lacks the created_at index';
  END IF;
  EXECUTE (SELECT 'DROP INDEX ' || indexname FROM pg_indexes
           WHERE tablename = 'plain_n' AND indexdef LIKE '%USING brin (created_at)%');
  EXECUTE (SELECT 'DROP INDEX ' || indexname FROM pg_indexes
           WHERE tablename = 'btree_n' AND indexdef LIKE '%USING brin (created_at)%');
  CREATE INDEX ON btree_n (created_at);
END $$;
CREATE FUNCTION pg_temp.insert_batches(target regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..200 LOOP
    EXECUTE format('INSERT INTO %s (user_id, type, title) '
                   'SELECT 1 + g %% 5000, ''task.due'', ''t'' FROM generate_series(1, 500) g', target);
  END LOOP;
END $$;
\o /dev/null
\timing on
\echo -- without, BRIN, B-tree, three times
SELECT pg_temp.insert_batches('plain_n');
SELECT pg_temp.insert_batches('brin_n');
SELECT pg_temp.insert_batches('btree_n');
SELECT pg_temp.insert_batches('plain_n');
SELECT pg_temp.insert_batches('brin_n');
SELECT pg_temp.insert_batches('btree_n');
SELECT pg_temp.insert_batches('plain_n');
SELECT pg_temp.insert_batches('brin_n');
SELECT pg_temp.insert_batches('btree_n');
