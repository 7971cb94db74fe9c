-- One batch of ending a canceled broadcast's deliveries not yet sent: the
-- notifications with dedup key $2 of the $3 highest recipients at or below
-- user id $4 (a backward range scan of notification_dedup's primary key), their `queued` deliveries `canceled` (last_error 'canceled'; a
-- `sending` one is in flight and finishes; one a claim holds is waited for
-- and then left, as it is `sending`). Moves broadcast $1's cancel_cursor
-- below them (NULL when fewer than $3 were left: nothing is) and holds its
-- lease, $5 seconds, for process $6 (released at the end). Returns the
-- recipients walked and the deliveries canceled.
WITH walked AS MATERIALIZED (
  SELECT n.notification_id AS id, n.user_id
  FROM chopar.notification_dedup n
  WHERE n.user_id <= $4::bigint AND n.dedup_key = $2::text
  ORDER BY n.user_id DESC
  LIMIT $3::int
), canceled AS (
  UPDATE chopar.deliveries d
  SET status = 'canceled', last_error = 'canceled', updated_at = now()
  FROM walked w
  WHERE d.notification_id = w.id AND d.status = 'queued'
  RETURNING 1
), moved AS (
  UPDATE chopar.broadcasts b
  SET cancel_cursor = CASE WHEN s.walked < $3::int THEN NULL ELSE s.low - 1 END,
      lease_until = CASE WHEN s.walked < $3::int THEN NULL
                         ELSE now() + make_interval(secs => $5::float8) END,
      lease_owner = CASE WHEN s.walked < $3::int THEN NULL ELSE $6::text END
  FROM (SELECT count(*) AS walked, min(user_id) AS low FROM walked) s
  WHERE b.id = $1::bigint
  RETURNING 1
)
SELECT (SELECT count(*) FROM walked) AS recipients,
       (SELECT count(*) FROM canceled) AS canceled,
       (SELECT count(*) FROM moved) AS moved
