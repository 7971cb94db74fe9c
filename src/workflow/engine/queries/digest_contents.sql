-- What the windows $1 hold, oldest item first, with what their digest is
-- rendered from: each item's notification and its user's locale, zone and
-- data.
SELECT i.digest_id, i.notification_id, array_to_string(i.channels, ',') AS channels,
       n.title, n.body, n.link, n.data::text AS data, n.created_at::text AS created_at,
       u.locale, u.timezone, u.data::text AS user_data
FROM chopar.digest_items i
JOIN chopar.notifications n ON n.id = i.notification_id
JOIN chopar.users u ON u.id = n.user_id
WHERE i.digest_id = ANY ($1::bigint[])
ORDER BY i.digest_id, i.notification_id
