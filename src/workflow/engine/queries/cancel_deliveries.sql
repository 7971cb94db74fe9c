-- Cancels the queued deliveries of the notifications with key $1 (of user
-- $2; NULL: every user's): `canceled`, last_error 'canceled'. A `sending`
-- row is in flight and finishes; a row a claim holds is waited for, then
-- seen as `sending` and left. Served by notifications_cancellation and
-- deliveries_notification. A digest's delivery (digest_id set) carries
-- other notifications too and is left. Returns the channel of each
-- canceled row.
UPDATE chopar.deliveries d
SET status = 'canceled', last_error = 'canceled', updated_at = now()
FROM chopar.notifications n
WHERE n.cancellation_key = $1 AND ($2::bigint IS NULL OR n.user_id = $2::bigint)
  AND d.notification_id = n.id AND d.status = 'queued' AND d.digest_id IS NULL
RETURNING d.channel
