-- Creates or replaces schedules in one statement. $1: JSON array of
-- {key, user_id, cron, timezone, type, title, body, link, data, channels,
-- critical, delay_seconds, cancellation_key, catchup_policy,
-- catchup_window_seconds, enabled, next_fire_at, last_error};
-- $2: now. A replacement that keeps the pattern, zone, user and enabled state
-- keeps its stored next_fire_at, so re-sending the same schedule (a rebuild
-- from the application's own tables) never loses an occurrence that is due
-- and not yet fired. Rows are written in key order so concurrent bulk writes
-- lock in the same order.
INSERT INTO chopar.schedules AS s (key, user_id, cron, timezone, type, title, body, link, data, channels,
                            critical, delay_seconds, cancellation_key, catchup_policy,
                            catchup_window_seconds, enabled, next_fire_at, last_error, created_at,
                            updated_at)
SELECT x.key, x.user_id, x.cron, x.timezone, x.type, x.title, coalesce(x.body, ''), x.link,
       coalesce(x.data, '{}'::jsonb), x.channels, x.critical, x.delay_seconds, x.cancellation_key,
       x.catchup_policy,
       x.catchup_window_seconds, x.enabled, x.next_fire_at, x.last_error, $2::timestamptz, $2::timestamptz
FROM jsonb_to_recordset($1::jsonb)
  AS x(key text, user_id bigint, cron text, timezone text, type text, title text, body text, link text,
       data jsonb, channels text[], critical boolean, delay_seconds integer, cancellation_key text,
       catchup_policy text, catchup_window_seconds integer,
       enabled boolean, next_fire_at timestamptz, last_error text)
ORDER BY x.key
ON CONFLICT (key) DO UPDATE SET
  user_id = excluded.user_id,
  cron = excluded.cron,
  timezone = excluded.timezone,
  type = excluded.type,
  title = excluded.title,
  body = excluded.body,
  link = excluded.link,
  data = excluded.data,
  channels = excluded.channels,
  critical = excluded.critical,
  delay_seconds = excluded.delay_seconds,
  cancellation_key = excluded.cancellation_key,
  catchup_policy = excluded.catchup_policy,
  catchup_window_seconds = excluded.catchup_window_seconds,
  enabled = excluded.enabled,
  next_fire_at = CASE
    WHEN s.enabled AND excluded.enabled AND s.last_error IS NULL AND excluded.last_error IS NULL
         AND s.user_id = excluded.user_id
         AND s.cron = excluded.cron AND s.timezone IS NOT DISTINCT FROM excluded.timezone
    THEN s.next_fire_at
    ELSE excluded.next_fire_at
  END,
  last_error = excluded.last_error,
  updated_at = excluded.updated_at
RETURNING key, next_fire_at::text AS next_fire_at
