-- The workflow run of notification $1, when its type has steps: where it
-- stands and each step's outcome (GET /v1/notifications/{id}). By the
-- runs' primary key.
SELECT status, step, chopar.api_time(due_at) AS due_at, outcomes::text AS outcomes
FROM chopar.workflow_runs
WHERE notification_id = $1::bigint
