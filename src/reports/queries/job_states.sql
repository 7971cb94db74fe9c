-- The state of the jobs $1 for GET /v1/reports and the metrics.
SELECT job, chopar.api_time(last_success_at) AS last_success_at,
       extract(epoch FROM last_success_at)::float8 AS last_success_unix,
       last_error, chopar.api_time(last_error_at) AS last_error_at, failures
FROM chopar.report_jobs
WHERE job = ANY ($1::text[])
