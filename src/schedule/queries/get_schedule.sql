-- One schedule as the API shows it (GET /v1/schedules/{key}).
SELECT json_build_object(
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
         'updated_at', chopar.api_time(s.updated_at))::text AS doc
FROM chopar.schedules s
JOIN chopar.users u ON u.id = s.user_id
WHERE s.key = $1
