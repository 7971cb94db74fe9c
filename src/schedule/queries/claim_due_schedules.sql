-- plan: generic
-- Locks up to $2 schedules due at $1, earliest first, for one firing
-- transaction; with $3, only those due after $3 (a firing prepared ahead of
-- its instant $1 leaves what is overdue to the firing at once). Rows another
-- scheduler holds are skipped, never waited for.
-- The user row is share-locked too (skipping users whose row a time-zone
-- change holds): the zone read here stays current until COMMIT, and the
-- notification insert's foreign-key check never waits on a user update that
-- itself waits on these schedule rows. A schedule whose user is skipped stays
-- locked, unfired, until this transaction ends; it is still due then.
--
-- The due rows are limited before the users are joined: just after a bulk
-- load the statistics undercount the due rows, and a plan that joins first
-- hashed the whole users table and sorted every due schedule for each batch
-- (20–35 ms instead of ~1 ms). The user is a lateral lookup by key for the
-- same reason: a custom plan of a plain join hashed every user (49 ms a
-- batch of 500 with 50,000 users, against 3 ms by key), and a generic plan
-- spares the ~3 ms of planning each batch.
WITH due AS MATERIALIZED (
  SELECT key, user_id, cron, timezone, next_fire_at, catchup_policy, catchup_window_seconds,
         type, title, body, link, data, channels, critical, delay_seconds, cancellation_key
  FROM chopar.schedules
  WHERE enabled AND next_fire_at <= $1::timestamptz
    AND next_fire_at > coalesce($3::timestamptz, '-infinity')
  ORDER BY next_fire_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
)
SELECT s.key, s.user_id, s.cron, coalesce(s.timezone, u.timezone) AS zone,
       s.next_fire_at::text AS next_fire_at, s.catchup_policy, s.catchup_window_seconds,
       s.type, s.title, s.body, s.link, s.data::text AS data, s.channels::text AS channels, s.critical,
       s.delay_seconds, s.cancellation_key
FROM due s
CROSS JOIN LATERAL (SELECT u.timezone FROM chopar.users u WHERE u.id = s.user_id AND NOT u.erasing
                    FOR KEY SHARE SKIP LOCKED) u
ORDER BY s.next_fire_at
