-- The builtin anomaly check's numbers over three windows: k = 1 is today
-- [$1, $2), k = 2 and 3 the same hours of the same weekday one and two weeks
-- before ([$3, $4), [$5, $6)). For each window, the notifications created
-- per type and their deliveries sent and failed per channel: rows (k,
-- metric, value); metrics with no rows in a window are absent. Each window
-- is an index range of notifications_created (0011), planned with its own
-- bounds; deliveries are reached through UNIQUE (notification_id, channel).
WITH n AS MATERIALIZED (
  SELECT 1 AS k, id, type FROM chopar.notifications
  WHERE created_at >= $1::timestamptz AND created_at < $2::timestamptz
  UNION ALL
  SELECT 2, id, type FROM chopar.notifications
  WHERE created_at >= $3::timestamptz AND created_at < $4::timestamptz
  UNION ALL
  SELECT 3, id, type FROM chopar.notifications
  WHERE created_at >= $5::timestamptz AND created_at < $6::timestamptz
)
SELECT k, 'notifications.' || type AS metric, count(*) AS value
FROM n GROUP BY k, type
UNION ALL
SELECT n.k, d.channel || '.' || d.status, count(*)
FROM n CROSS JOIN LATERAL (
  -- OFFSET 0: index lookups per notification, never a scan of the history
  -- (see summary_stats.sql).
  SELECT channel, status FROM chopar.deliveries
  WHERE notification_id = n.id AND status IN ('sent', 'failed') OFFSET 0) d
GROUP BY n.k, d.channel, d.status
