-- After record_action_press.sql, in its transaction: the event
-- notification.action into chopar's outbox (docs/outbox.md), with the
-- notification as it now is (read, the action pressed).
SELECT chopar.emit('notification.action', a.user_id,
                   jsonb_build_object('notification_id', a.notification_id,
                                      'user_id', a.user_id,
                                      'action', a.action_index,
                                      'event', a.event,
                                      'label', n.doc::jsonb -> 'actions' -> a.action_index::int -> 'label',
                                      'pressed_at', chopar.api_time(a.pressed_at),
                                      'notification', n.doc::jsonb))
FROM chopar.notification_actions a
JOIN chopar.notifications_api n ON n.id = a.notification_id
WHERE a.notification_id = $1 AND a.action_index = $2
