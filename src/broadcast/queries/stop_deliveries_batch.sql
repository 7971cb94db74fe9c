-- The second statement of one batch of the walk that stops a canceled
-- broadcast's pieces not yet sent (after stop_delayed_batch.sql, in the same
-- transaction). Of the notifications $2 (bigint[], the recipients walked):
-- - their items leave the digest windows still open, each window locked
--   first (one the closer holds is waited for and, once closed, left: its
--   digest is queued already, and carries other notifications too);
-- - their deliveries not handed to a provider yet end `canceled` (last_error
--   'canceled'): `queued` ones, and `sending` ones a worker has claimed but
--   not started (send_started_at NULL: its begin_sends then finds the row no
--   longer its own and does not send it). A send started finishes; a row a
--   claim holds is waited for, then seen as it is. A digest's delivery
--   (digest_id set) is left, as above.
-- Broadcast $1's cancel_cursor moves below the lowest recipient walked, $3
-- (NULL when fewer than $4, the batch size, were walked: the walk is over),
-- its counts of what was stopped grow ($5 delayed notifications, from the
-- first statement), and its lease is held $6 seconds by process $7 (NULL:
-- none held; released too when the walk is over).
-- Returns the deliveries canceled and the digest items removed.
WITH hit AS MATERIALIZED (
  SELECT g.id
  FROM chopar.digests g
  WHERE g.status = 'open'
    AND g.id IN (SELECT i.digest_id FROM chopar.digest_items i
                 WHERE i.notification_id = ANY ($2::bigint[]))
  ORDER BY g.id
  FOR UPDATE
), removed AS (
  DELETE FROM chopar.digest_items i
  WHERE i.digest_id IN (SELECT id FROM hit) AND i.notification_id = ANY ($2::bigint[])
  RETURNING i.digest_id
), shrunk AS (
  UPDATE chopar.digests g
  SET item_count = g.item_count - r.n
  FROM (SELECT digest_id, count(*)::int AS n FROM removed GROUP BY digest_id) r
  WHERE g.id = r.digest_id
  RETURNING r.n
), canceled AS (
  UPDATE chopar.deliveries d
  SET status = 'canceled', last_error = 'canceled', lease_until = NULL, claim_token = NULL,
      updated_at = now()
  WHERE d.notification_id = ANY ($2::bigint[]) AND d.digest_id IS NULL
    AND (d.status = 'queued' OR (d.status = 'sending' AND d.send_started_at IS NULL))
  RETURNING 1
), moved AS (
  UPDATE chopar.broadcasts b
  SET cancel_cursor = CASE WHEN cardinality($2::bigint[]) < $4::int THEN NULL ELSE $3::bigint - 1 END,
      lease_until = CASE WHEN cardinality($2::bigint[]) < $4::int OR $7::text IS NULL THEN NULL
                         ELSE now() + make_interval(secs => $6::float8) END,
      lease_owner = CASE WHEN cardinality($2::bigint[]) < $4::int THEN NULL ELSE $7::text END,
      stopped_delayed = b.stopped_delayed + $5::bigint,
      stopped_deliveries = b.stopped_deliveries + (SELECT count(*) FROM canceled),
      stopped_digest_items = b.stopped_digest_items + coalesce((SELECT sum(n) FROM shrunk), 0)
  WHERE b.id = $1::bigint
  RETURNING 1
)
SELECT (SELECT count(*) FROM canceled) AS canceled,
       coalesce((SELECT sum(n) FROM shrunk), 0)::bigint AS digest_items,
       (SELECT count(*) FROM moved) AS moved
