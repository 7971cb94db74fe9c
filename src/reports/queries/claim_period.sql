-- Claims a job's period inside the run's transaction: the row that makes a
-- period reported once across restarts, crashes and instances. No row back:
-- it is reported already (by a transaction that committed, or that this
-- statement waited for and that then committed).
INSERT INTO chopar.report_runs (job, period_key, due_at, ran_at)
VALUES ($1, $2, $3::timestamptz, $4::timestamptz)
ON CONFLICT (job, period_key) DO NOTHING
RETURNING job
