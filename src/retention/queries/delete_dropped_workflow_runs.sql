-- Forgets up to $1 workflow runs (chopar.workflow_runs) of notifications
-- retention dropped: a run carries its notification's partition key, so
-- those created before every partition of notifications left are exactly
-- the runs of notifications that are gone. Oldest first through
-- workflow_runs_created. Returns one row per run forgotten.
WITH kept AS (
  SELECT min(p.lower_bound) AS since
  FROM chopar.history_partitions('chopar.notifications'::regclass) p
)
DELETE FROM chopar.workflow_runs r
WHERE r.notification_id IN (
  SELECT w.notification_id
  FROM chopar.workflow_runs w, kept
  WHERE w.notification_created_at < kept.since
  ORDER BY w.notification_created_at
  LIMIT $1::int)
RETURNING 1
