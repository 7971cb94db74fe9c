-- History for bench/history.sh: :rows delivered rows spread over the :days
-- days before now, for users 1..:users (the users notify_bench seeds, who
-- must exist), in the proportions notify_bench itself creates: a
-- notification has two deliveries (email and telegram), and the sink
-- recorded one message per delivery it sent. Of the deliveries 96 % are
-- sent, 2 % failed and 2 % skipped; 90 % of the notifications older than a
-- day are read; one in ten carries a dedup key. Ids and times rise
-- together, as they do in a live database. Written in chunks of :chunk
-- notifications, each its own transaction, with a progress line each.
--
--   psql URL -v rows=20000000 -v users=10000 -v days=90 -v chunk=500000 -f bench/history.sql
\set ON_ERROR_STOP on
SET client_min_messages = notice;

CREATE PROCEDURE pg_temp.generate_history(deliveries bigint, users bigint, days int, chunk bigint)
LANGUAGE plpgsql AS $$
DECLARE
  notifications constant bigint := deliveries / 2;
  first_id bigint := coalesce((SELECT max(id) FROM chopar.notifications), 0) + 1;
  first_delivery bigint := coalesce((SELECT max(id) FROM chopar.deliveries), 0) + 1;
  first_sink bigint := coalesce((SELECT max(id) FROM chopar.sink_messages), 0) + 1;
  span constant interval := make_interval(days => days);
  started constant timestamptz := clock_timestamp();
  origin constant timestamptz := now();
  lo bigint := 0;
  hi bigint;
BEGIN
  WHILE lo < notifications LOOP
    hi := least(lo + chunk, notifications) - 1;
    -- k: 0-based position in this history; its time goes from `days` ago to now.
    INSERT INTO chopar.notifications
        (id, user_id, type, title, body, data, dedup_key, created_at, read_at)
      OVERRIDING SYSTEM VALUE
      SELECT first_id + k, k % users + 1, 'history.ping', 'History ping ' || k,
             'Notification ' || k || ' of the generated history',
             jsonb_build_object('n', k),
             CASE WHEN k % 10 = 0 THEN 'history-' || k END,
             t, CASE WHEN t < origin - interval '1 day' AND k % 10 <> 3 THEN t + interval '2 hours' END
      FROM generate_series(lo, hi) k,
           LATERAL (SELECT origin - span * (1 - k::float8 / notifications) AS t) at_k;
    INSERT INTO chopar.deliveries
        (id, notification_id, user_id, channel, status, attempts, next_attempt_at, claimed_at,
         sent_at, last_error, created_at, updated_at)
      OVERRIDING SYSTEM VALUE
      SELECT first_delivery + 2 * k + c, first_id + k, k % users + 1,
             (ARRAY['email', 'telegram'])[c + 1], s.status,
             CASE WHEN s.status = 'skipped' THEN 0 ELSE 1 END, t,
             CASE WHEN s.status <> 'skipped' THEN t END,
             CASE WHEN s.status = 'sent' THEN t END,
             CASE WHEN s.status <> 'sent' THEN 'generated history: ' || s.status END, t, t
      FROM generate_series(lo, hi) k, generate_series(0, 1) c,
           LATERAL (SELECT origin - span * (1 - k::float8 / notifications) AS t) at_k,
           LATERAL (SELECT CASE (2 * k + c) % 50 WHEN 7 THEN 'failed' WHEN 31 THEN 'skipped'
                               ELSE 'sent' END AS status) s;
    INSERT INTO chopar.sink_messages
        (id, delivery_id, channel, user_id, address, subject, body, created_at)
      OVERRIDING SYSTEM VALUE
      SELECT first_sink + 2 * k + c, first_delivery + 2 * k + c,
             (ARRAY['email', 'telegram'])[c + 1], k % users + 1,
             CASE c WHEN 0 THEN 'user' || (k % users + 1) || '@bench.example'
                    ELSE (900000000 + k % users + 1)::text END,
             CASE c WHEN 0 THEN 'History ping ' || k END,
             'Notification ' || k || ' of the generated history', t
      FROM generate_series(lo, hi) k, generate_series(0, 1) c,
           LATERAL (SELECT origin - span * (1 - k::float8 / notifications) AS t) at_k
      WHERE (2 * k + c) % 50 NOT IN (7, 31);
    COMMIT;
    lo := hi + 1;
    RAISE NOTICE 'history: % of % notifications (% deliveries) after % s', lo, notifications,
      2 * lo, round(extract(epoch FROM clock_timestamp() - started));
  END LOOP;
  -- The identities continue after the generated ids.
  PERFORM setval(pg_get_serial_sequence('chopar.notifications', 'id'),
                 (SELECT max(id) FROM chopar.notifications));
  PERFORM setval(pg_get_serial_sequence('chopar.deliveries', 'id'),
                 (SELECT max(id) FROM chopar.deliveries));
  PERFORM setval(pg_get_serial_sequence('chopar.sink_messages', 'id'),
                 (SELECT max(id) FROM chopar.sink_messages));
END
$$;

CALL pg_temp.generate_history(:rows, :users, :days, :chunk);
