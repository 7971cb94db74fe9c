-- Locks up to $2 schedules due at $1, earliest first, for one firing
-- transaction. Rows another scheduler holds are skipped, never waited for.
-- The user row is share-locked too (skipping users whose row a time-zone
-- change holds): the zone read here stays current until COMMIT, and the
-- notification insert's foreign-key check never waits on a user update that
-- itself waits on these schedule rows.
SELECT s.key, s.user_id, s.cron, coalesce(s.timezone, u.timezone) AS zone,
       s.next_fire_at::text AS next_fire_at, s.catchup_policy, s.catchup_window_seconds,
       s.type, s.title, s.body, s.link, s.data::text AS data, s.channels::text AS channels, s.critical
FROM schedules s
JOIN users u ON u.id = s.user_id
WHERE s.enabled AND s.next_fire_at <= $1::timestamptz
ORDER BY s.next_fire_at
LIMIT $2::int
FOR UPDATE OF s SKIP LOCKED
FOR KEY SHARE OF u SKIP LOCKED
