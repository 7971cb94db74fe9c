-- Deliveries created in each of the last $1 minutes (the current one
-- included), by channel and their status now (GET /v1/stats/deliveries).
-- The BRIN index on created_at keeps this to the newest block ranges.
SELECT date_trunc('minute', created_at)::text AS at, channel, status, count(*) AS count
FROM chopar.deliveries
WHERE created_at >= date_trunc('minute', now()) - make_interval(mins => $1 - 1)
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
