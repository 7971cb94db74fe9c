-- The builtin anomaly check's numbers: for each window k of
-- unnest($1 from[], $2 to[]) (today first, then the same hours of the same
-- weekday one and two weeks before), the notifications created per type and
-- their deliveries sent and failed per channel. Rows (k, metric, value);
-- metrics with no rows in a window are absent. Each window is an index
-- range of notifications_created (0011); deliveries are reached through
-- UNIQUE (notification_id, channel).
WITH w AS (
  SELECT * FROM unnest($1::timestamptz[], $2::timestamptz[]) WITH ORDINALITY AS w(from_at, to_at, k)
), n AS MATERIALIZED (
  SELECT w.k, n.id, n.type
  FROM w JOIN notifications n ON n.created_at >= w.from_at AND n.created_at < w.to_at
)
SELECT k, 'notifications.' || type AS metric, count(*) AS value
FROM n GROUP BY k, type
UNION ALL
SELECT n.k, d.channel || '.' || d.status, count(*)
FROM n JOIN deliveries d ON d.notification_id = n.id
WHERE d.status IN ('sent', 'failed')
GROUP BY n.k, d.channel, d.status
