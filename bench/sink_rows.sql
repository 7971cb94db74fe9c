-- What storing the sink's rendered email costs PostgreSQL: 100,000 sink rows
-- as before (title and body) against 100,000 as now (the text part and the
-- HTML part of the email, as channels::RenderEmail makes them), inserted in
-- batches of 500 as the worker's claims write them, twice each, interleaved.
-- Run: bash scripts/with-test-pg sh -c 'psql "$CHOPAR_TEST_DATABASE_URL" -qAt -f bench/sink_rows.sql'
-- (docs/BENCHMARKS.md "Sink rows").
CREATE TABLE s1 (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, delivery_id bigint NOT NULL, channel text NOT NULL, user_id bigint NOT NULL, address text, subject text, body text, created_at timestamptz NOT NULL DEFAULT now(), html text);
CREATE TABLE s2 (LIKE s1 INCLUDING ALL);
\timing on
DO $$ BEGIN FOR i IN 1..200 LOOP
  INSERT INTO s1 (delivery_id, channel, user_id, address, subject, body)
  SELECT g, 'email', g, 'user' || g || '@example.uz', 'Muddat yaqin', 'Non olish — 18:00' FROM generate_series(i*500, i*500+499) g;
END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..200 LOOP
  INSERT INTO s2 (delivery_id, channel, user_id, address, subject, body, html)
  SELECT g, 'email', g, 'user' || g || '@example.uz', 'Muddat yaqin',
   E'Muddat yaqin\n\nNon olish — 18:00\n\nOpen: http://127.0.0.1:8080/tasks/1\n\n--\nYou receive this because of your notification settings. Change them: http://127.0.0.1:8080/preferences?user=' || g,
   E'<!doctype html><html><body style="font-family:sans-serif">\n<h2>Muddat yaqin</h2>\n<p>Non olish — 18:00</p>\n<p><a href="http://127.0.0.1:8080/tasks/1">Open</a></p>\n<hr><p style="color:#666;font-size:12px">You receive this because of your notification settings. Change them: <a href="http://127.0.0.1:8080/preferences?user=' || g || '">Notification settings</a></p>\n</body></html>\n'
  FROM generate_series(i*500, i*500+499) g;
END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..200 LOOP
  INSERT INTO s1 (delivery_id, channel, user_id, address, subject, body)
  SELECT g, 'email', g, 'user' || g || '@example.uz', 'Muddat yaqin', 'Non olish — 18:00' FROM generate_series(i*500, i*500+499) g;
END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..200 LOOP
  INSERT INTO s2 (delivery_id, channel, user_id, address, subject, body, html)
  SELECT g, 'email', g, 'user' || g || '@example.uz', 'Muddat yaqin',
   E'Muddat yaqin\n\nNon olish — 18:00\n\nOpen: http://127.0.0.1:8080/tasks/1\n\n--\nYou receive this because of your notification settings. Change them: http://127.0.0.1:8080/preferences?user=' || g,
   E'<!doctype html><html><body style="font-family:sans-serif">\n<h2>Muddat yaqin</h2>\n<p>Non olish — 18:00</p>\n<p><a href="http://127.0.0.1:8080/tasks/1">Open</a></p>\n<hr><p style="color:#666;font-size:12px">You receive this because of your notification settings. Change them: <a href="http://127.0.0.1:8080/preferences?user=' || g || '">Notification settings</a></p>\n</body></html>\n'
  FROM generate_series(i*500, i*500+499) g;
END LOOP; END $$;
\timing off
SELECT 'bytes per row: ' || pg_relation_size('s1')/200000 || ' vs ' || pg_relation_size('s2')/200000;
