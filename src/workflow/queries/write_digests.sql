-- Writes what the notifiers decided about digest windows, in one statement:
-- new windows ($1 slot int[], $2 user_id, $3 type, $4 key, $5 closes_at,
-- $6 item_count; their ids drawn here), the new item count and closing
-- time of windows joined ($7 id, $8 item_count, $9 closes_at), and the
-- items ($10 digest id or NULL, $11 slot of a new window or NULL, $12
-- notification_id, $13 channels, comma-separated); $14: now; $15: the new
-- windows are workflow runs' (digests.workflow). Wakes the
-- closers when a window opened or now closes earlier.
WITH fresh AS MATERIALIZED (
  SELECT x.*, nextval(pg_get_serial_sequence('chopar.digests', 'id')) AS id
  FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::timestamptz[], $6::int[])
    AS x(slot, user_id, type, key, closes_at, item_count)
), opened AS (
  INSERT INTO chopar.digests (id, user_id, type, key, opened_at, closes_at, item_count, workflow)
  OVERRIDING SYSTEM VALUE
  SELECT id, user_id, type, key, $14::timestamptz, closes_at, item_count, $15::boolean FROM fresh
  RETURNING id
), joined AS (
  UPDATE chopar.digests d
  SET item_count = j.item_count, closes_at = j.closes_at
  FROM unnest($7::bigint[], $8::int[], $9::timestamptz[]) AS j(id, item_count, closes_at)
  WHERE d.id = j.id
  RETURNING d.id
), items AS (
  INSERT INTO chopar.digest_items (digest_id, notification_id, channels)
  SELECT coalesce(i.digest_id, f.id), i.notification_id, string_to_array(i.channels, ',')
  FROM unnest($10::bigint[], $11::int[], $12::bigint[], $13::text[])
    AS i(digest_id, slot, notification_id, channels)
  LEFT JOIN fresh f ON f.slot = i.slot
  RETURNING 1
), woken AS (
  SELECT pg_notify('chopar_digests', '') WHERE cardinality($1::int[]) > 0 OR cardinality($7::bigint[]) > 0
)
SELECT (SELECT count(*) FROM opened) AS opened, (SELECT count(*) FROM joined) AS joined,
       (SELECT count(*) FROM items) AS items, (SELECT count(*) FROM woken) AS woken
