-- A notification with its deliveries.
SELECT (v.doc::jsonb || jsonb_build_object('deliveries', coalesce(
          (SELECT jsonb_agg(jsonb_build_object('id', d.id, 'channel', d.channel, 'status', d.status,
                                               'attempts', d.attempts, 'last_error', d.last_error,
                                               'updated_at', chopar.api_time(d.updated_at))
                            ORDER BY d.id)
           FROM chopar.deliveries d WHERE d.notification_id = v.id), '[]'::jsonb)))::text AS doc
FROM chopar.notifications_api v
WHERE v.id = $1
