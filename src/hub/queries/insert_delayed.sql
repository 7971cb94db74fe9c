-- Stores notifications asked for later (send_at / delay_seconds in the
-- future; docs/api.md "Workflows") and wakes the releasers (sent at
-- COMMIT): nothing is in the inbox yet. Parallel arrays, one element per
-- row: $1 idx int[], $2 notification id drawn for it bigint[], $3 user_id
-- bigint[], $4 due_at timestamptz[], $5 request (jsonb[]), $6 dedup_key
-- text[], $7 cancellation_key text[]; $8: now; $9 the version of the
-- requests' stored form (hub/stored_request.hpp). A dedup key is reserved in
-- notification_dedup with the drawn id (dated when it falls due), the one
-- arbiter of keys for immediate and delayed notifications alike: a key
-- already held is not stored again.
-- Returns one row per input: whether it was stored, and the id (the
-- existing one for a repeated dedup key; NULL when the duplicate is another
-- row of this same batch).
WITH input AS MATERIALIZED (
  SELECT *
  FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::timestamptz[], $5::jsonb[], $6::text[], $7::text[])
    AS x(idx, id, user_id, due_at, request, dedup_key, cancellation_key)
), keyed AS (
  INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
  SELECT user_id, dedup_key, id, due_at
  FROM input
  WHERE dedup_key IS NOT NULL
  ORDER BY idx
  ON CONFLICT (user_id, dedup_key) DO NOTHING
  RETURNING notification_id
), inserted AS (
  INSERT INTO chopar.delayed_notifications (notification_id, user_id, due_at, request,
                                            request_version, dedup_key, cancellation_key,
                                            created_at)
  SELECT i.id, i.user_id, i.due_at, i.request, $9::smallint, i.dedup_key, i.cancellation_key,
         $8::timestamptz
  FROM input i
  WHERE i.dedup_key IS NULL OR i.id IN (SELECT k.notification_id FROM keyed k)
  ORDER BY i.idx
  RETURNING notification_id
), woken AS (
  SELECT pg_notify('chopar_delayed', '') FROM (SELECT 1 FROM inserted LIMIT 1) x
)
SELECT i.idx, n.notification_id IS NOT NULL AS created,
       coalesce(n.notification_id,
                (SELECT e.notification_id FROM chopar.notification_dedup e
                 WHERE e.user_id = i.user_id AND e.dedup_key = i.dedup_key)) AS id,
       (SELECT count(*) FROM woken) AS woken
FROM input i
LEFT JOIN inserted n ON n.notification_id = i.id
ORDER BY i.idx
