-- The recorded press of action $2 of notification $1.
SELECT event, pressed_at::text AS pressed_at
FROM chopar.notification_actions
WHERE notification_id = $1 AND action_index = $2
