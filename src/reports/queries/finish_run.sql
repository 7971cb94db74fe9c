-- Completes a run in its transaction: how many recipients it reached, and
-- the job's success (its failures in a row start again from zero).
-- $1 job, $2 period key, $3 recipients, $4 now.
WITH run AS (
  UPDATE chopar.report_runs SET recipients = $3 WHERE job = $1 AND period_key = $2
)
INSERT INTO chopar.report_jobs (job, last_success_at, failures)
VALUES ($1, $4::timestamptz, 0)
ON CONFLICT (job) DO UPDATE SET last_success_at = excluded.last_success_at, failures = 0
