-- plan: generic
-- Locks up to $2 workflow runs due at $1 ($1 NULL: the database's now())
-- for one advance (step_advancer.cpp), earliest first, skipping rows
-- another advancer holds: one range scan of workflow_runs_due. Returns
-- their ids alone; claim_workflow_runs.sql then reads them. Two statements
-- because a run another advancer moved on after this statement's snapshot
-- (still active and due: a step due at once, or woken by its delivery's
-- end) is locked here in its newest version, while anything else this
-- statement read of it or its delivery would be the older version: the
-- next statement's snapshot, taken after the locks, sees the newest.
SELECT notification_id
FROM chopar.workflow_runs
WHERE status = 'active' AND due_at <= coalesce($1::timestamptz, now())
ORDER BY due_at
LIMIT $2::int
FOR UPDATE SKIP LOCKED
