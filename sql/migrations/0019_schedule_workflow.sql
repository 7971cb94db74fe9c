-- A schedule's notification may be delayed and carry a cancellation key
-- (docs/api.md "Schedules", "Workflows"): each occurrence then appears
-- `delay_seconds` after its due instant, and every occurrence's notification
-- carries `cancellation_key`. The bounds are the API's (delay 0 to 366 days,
-- key 1 to 255 characters). A schedule takes no `send_at` (an absolute
-- instant does not recur; docs/api.md says why), so no column holds one.
-- Nullable columns without a default: a catalog-only change, no rewrite.
-- The CHECKs are added NOT VALID so that the ACCESS EXCLUSIVE lock is not
-- held through a scan of every schedule: the columns are new, so every
-- existing row holds NULL, which satisfies them; every row written from now
-- on is checked.
ALTER TABLE chopar.schedules
  ADD COLUMN delay_seconds integer,
  ADD COLUMN cancellation_key text,
  ADD CONSTRAINT schedules_delay_seconds_range
    CHECK (delay_seconds BETWEEN 0 AND 31622400) NOT VALID,
  ADD CONSTRAINT schedules_cancellation_key_length
    CHECK (char_length(cancellation_key) BETWEEN 1 AND 255) NOT VALID;

-- GET /v1/schedules/{key} and GET /v1/schedules show them in `notification`
-- (null when not set). Same columns as before, so the view is replaced in place.
CREATE OR REPLACE VIEW chopar.schedules_api AS
SELECT s.key, s.user_id,
       json_build_object(
         'key', s.key, 'user_id', s.user_id, 'cron', s.cron, 'timezone', s.timezone,
         'effective_timezone', coalesce(s.timezone, u.timezone),
         'notification', json_build_object('type', s.type, 'title', s.title, 'body', s.body,
                                           'link', s.link, 'data', s.data, 'channels', s.channels,
                                           'critical', s.critical,
                                           'delay_seconds', s.delay_seconds,
                                           'cancellation_key', s.cancellation_key),
         'catchup', json_build_object('policy', s.catchup_policy,
                                      'window_seconds', s.catchup_window_seconds),
         'enabled', s.enabled,
         'next_fire_at', chopar.api_time(s.next_fire_at),
         'last_fired_at', chopar.api_time(s.last_fired_at),
         'last_due_at', chopar.api_time(s.last_due_at),
         'last_skipped_at', chopar.api_time(s.last_skipped_at),
         'skipped_count', s.skipped_count,
         'last_error', s.last_error,
         'created_at', chopar.api_time(s.created_at),
         'updated_at', chopar.api_time(s.updated_at)) AS doc
FROM chopar.schedules s
JOIN chopar.users u ON u.id = s.user_id;
