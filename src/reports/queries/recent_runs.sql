-- The newest $2 runs of each job of $1, newest first (report_runs_recent).
SELECT j.job, r.period_key, r.due_at::text AS due_at, r.ran_at::text AS ran_at,
       r.recipients
FROM unnest($1::text[]) AS j(job)
CROSS JOIN LATERAL (
  SELECT period_key, due_at, ran_at, recipients
  FROM chopar.report_runs
  WHERE report_runs.job = j.job
  ORDER BY ran_at DESC, period_key DESC
  LIMIT $2
) r
ORDER BY j.job, r.ran_at DESC, r.period_key DESC
