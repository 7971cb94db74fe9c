-- Takes the notifications with key $1 (of user $2; NULL: every user's) out
-- of the digest windows still open, locking each window first: one the
-- closer holds is waited for and, once closed, left alone (its digest is
-- already queued). Returns the windows changed and how many items each lost.
WITH hit AS MATERIALIZED (
  SELECT d.id
  FROM chopar.digests d
  WHERE d.status = 'open'
    AND d.id IN (SELECT i.digest_id
                 FROM chopar.notifications n
                 JOIN chopar.digest_items i ON i.notification_id = n.id
                 WHERE n.cancellation_key = $1 AND ($2::bigint IS NULL OR n.user_id = $2::bigint))
  FOR UPDATE
), removed AS (
  DELETE FROM chopar.digest_items i
  USING chopar.notifications n
  WHERE i.digest_id IN (SELECT id FROM hit) AND n.id = i.notification_id
    AND n.cancellation_key = $1 AND ($2::bigint IS NULL OR n.user_id = $2::bigint)
  RETURNING i.digest_id
)
UPDATE chopar.digests d
SET item_count = d.item_count - r.n
FROM (SELECT digest_id, count(*)::int AS n FROM removed GROUP BY digest_id) r
WHERE d.id = r.digest_id
RETURNING d.id, r.n AS removed
