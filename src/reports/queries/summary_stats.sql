-- chopar's own statistics of one period for a builtin summary: the
-- notifications created in [$1, $2) and what became of their deliveries.
-- $3: how many types and failure reasons to list. One row of JSON columns.
-- The notifications are found by notifications_created (0011); their
-- deliveries by the UNIQUE (notification_id, channel) index, so the cost is
-- the period's rows, not the table's.
WITH n AS MATERIALIZED (
  SELECT id, type, created_at
  FROM chopar.notifications
  WHERE created_at >= $1::timestamptz AND created_at < $2::timestamptz
), d AS MATERIALIZED (
  SELECT d.channel, d.status, d.last_error,
         extract(epoch FROM d.sent_at - n.created_at)::float8 AS latency
  FROM n CROSS JOIN LATERAL (
    -- OFFSET 0 keeps this a per-notification index lookup: joined as a
    -- whole, the planner reads all of deliveries once the period is a few
    -- percent of it, and the cost grows with the history.
    SELECT channel, status, last_error, sent_at FROM chopar.deliveries
    WHERE notification_id = n.id OFFSET 0) d
)
SELECT
  (SELECT count(*) FROM n) AS notifications,
  (SELECT coalesce(json_agg(json_build_array(type, c) ORDER BY c DESC, type), '[]')
   FROM (SELECT type, count(*) AS c FROM n GROUP BY type ORDER BY c DESC, type LIMIT $3) t)
    AS top_types,
  (SELECT coalesce(json_agg(json_build_array(channel, status, c)), '[]')
   FROM (SELECT channel, status, count(*) AS c FROM d GROUP BY channel, status) t)
    AS deliveries,
  (SELECT coalesce(json_agg(json_build_array(reason, c) ORDER BY c DESC, reason), '[]')
   FROM (SELECT coalesce(left(last_error, 200), '?') AS reason, count(*) AS c
         FROM d WHERE status = 'failed'
         GROUP BY 1 ORDER BY c DESC, 1 LIMIT $3) t)
    AS failure_reasons,
  (SELECT json_build_array(percentile_cont(0.5) WITHIN GROUP (ORDER BY latency),
                           percentile_cont(0.95) WITHIN GROUP (ORDER BY latency))
   FROM d WHERE status = 'sent') AS latency
