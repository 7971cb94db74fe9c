-- The deliveries of notification $1, by id: the columns hub::ReadDelivery reads.
SELECT d.id, d.notification_id, d.user_id, d.channel, d.status, d.attempts, d.last_error,
       d.provider, d.provider_message_id, d.provider_status, d.next_attempt_at::text AS next_attempt_at,
       d.created_at::text AS created_at, d.updated_at::text AS updated_at,
       d.sent_at::text AS sent_at
FROM chopar.deliveries d
WHERE d.notification_id = $1
ORDER BY d.id
