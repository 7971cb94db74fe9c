-- What the admin console reads: the sink keeps each message as the user would
-- have received it (the email's HTML too), and the per-minute delivery chart
-- finds the last hour's deliveries without a scan.

-- The email's rendered text/html part; null for the other channels.
ALTER TABLE chopar.sink_messages ADD COLUMN html text;

-- Deliveries by creation time for GET /v1/stats/deliveries. BRIN: rows are
-- inserted in created_at order and the column never changes, so the index is
-- a few pages, costs an insert almost nothing and leaves updates HOT.
CREATE INDEX deliveries_created_brin ON chopar.deliveries USING brin (created_at)
  WITH (autosummarize = on);

-- A schedule as the API shows it: GET /v1/schedules/{key} and the list of
-- GET /v1/schedules read the same shape. A plain view: the planner inlines it,
-- so the primary key and schedules_user still serve both.
CREATE VIEW chopar.schedules_api AS
SELECT s.key, s.user_id,
       json_build_object(
         'key', s.key, 'user_id', s.user_id, 'cron', s.cron, 'timezone', s.timezone,
         'effective_timezone', coalesce(s.timezone, u.timezone),
         'notification', json_build_object('type', s.type, 'title', s.title, 'body', s.body,
                                           'link', s.link, 'data', s.data, 'channels', s.channels,
                                           'critical', s.critical),
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
