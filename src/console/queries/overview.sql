-- The console's overview figures (GET /v1/stats/overview), each from an
-- index: the queue from the partial indexes of queued and sending rows, the
-- schedule lag from schedules_due, the last hour from the BRIN index.
SELECT (SELECT count(*) FROM chopar.deliveries WHERE status = 'queued') AS queued,
       (SELECT count(*) FROM chopar.deliveries WHERE status = 'queued' AND next_attempt_at <= now()) AS due,
       (SELECT count(*) FROM chopar.deliveries WHERE status = 'sending') AS sending,
       (SELECT count(*) FROM chopar.schedules WHERE enabled AND next_fire_at <= now()) AS schedules_due,
       (SELECT coalesce(extract(epoch FROM now() - min(next_fire_at)), 0)
        FROM chopar.schedules WHERE enabled AND next_fire_at <= now())::float8 AS schedule_lag_seconds,
       (SELECT coalesce(json_object_agg(status, n), '{}')
        FROM (SELECT status, count(*) AS n FROM chopar.deliveries
              WHERE created_at >= now() - interval '1 hour' GROUP BY status) s)::text AS last_hour
