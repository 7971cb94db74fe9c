-- A schedule's columns as schedule::ReadSchedule reads them (GET
-- /v1/schedules/{key} and the console's list): the typed form of
-- schedules_api, whose JSON document the service no longer reads. Times
-- and the channel list as text, the zone it fires in resolved.
-- schedules_api stays while processes of the release before this one may
-- still read it (a rolling upgrade); a later migration drops it.
CREATE OR REPLACE VIEW chopar.schedule_rows AS
SELECT s.key, s.user_id, s.cron, s.timezone, coalesce(s.timezone, u.timezone) AS effective_timezone,
       s.type, s.title, s.body, s.link, s.data::text AS data,
       array_to_json(s.channels)::text AS channels, s.critical, s.delay_seconds,
       s.cancellation_key, s.catchup_policy, s.catchup_window_seconds, s.enabled,
       s.next_fire_at::text AS next_fire_at, s.last_fired_at::text AS last_fired_at,
       s.last_due_at::text AS last_due_at, s.last_skipped_at::text AS last_skipped_at,
       s.skipped_count, s.last_error, s.created_at::text AS created_at,
       s.updated_at::text AS updated_at
FROM chopar.schedules s
JOIN chopar.users u ON u.id = s.user_id;
