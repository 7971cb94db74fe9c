-- A run that did not happen (its source failed, or it had no recipient):
-- the reason, when, and one more failure in a row. $1 job, $2 reason, $3 now.
INSERT INTO chopar.report_jobs (job, last_error, last_error_at, failures)
VALUES ($1, $2, $3::timestamptz, 1)
ON CONFLICT (job) DO UPDATE
SET last_error = excluded.last_error, last_error_at = excluded.last_error_at,
    failures = report_jobs.failures + 1
