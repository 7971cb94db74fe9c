-- Which of the (job, period key) pairs $1[i], $2[i] are reported already
-- (primary key lookups).
SELECT r.job, r.period_key
FROM unnest($1::text[], $2::text[]) AS k(job, period_key)
JOIN chopar.report_runs r USING (job, period_key)
