-- The last step of erasing user $1, once no batch found anything: the
-- users row (what a notify in flight inserted since cascades with it, a
-- few rows at most) and the erasure's completion.
WITH gone AS (
  DELETE FROM chopar.users WHERE id = $1 AND erasing RETURNING id
)
UPDATE chopar.user_erasures SET completed_at = now()
WHERE user_id = $1 AND completed_at IS NULL
RETURNING user_id, (SELECT count(*) FROM gone) AS users_deleted
