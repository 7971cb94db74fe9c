-- The state of the jobs $1 for GET /v1/reports and the metrics.
SELECT job, last_success_at::text AS last_success_at, last_error,
       last_error_at::text AS last_error_at, failures
FROM chopar.report_jobs
WHERE job = ANY ($1::text[])
