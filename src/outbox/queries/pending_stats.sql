-- What the pending gauges show: cheap, through the partial index.
SELECT (SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL) AS pending,
       COALESCE((SELECT extract(epoch FROM now() - created_at)::float8
                 FROM chopar.outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT 1), 0)
         AS oldest_pending_age_seconds
