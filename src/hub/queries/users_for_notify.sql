-- plan: generic
-- Preferences, locale and addressability of the users a batch of
-- notifications is for ($1), then $2 notification ids drawn for the batch
-- (the rows whose id is NULL): a template may show a notification's id, so
-- a batch that uses one draws its ids before rendering, in this same round
-- trip ($2 = 0 otherwise).
SELECT u.id,
       u.preferences::text AS preferences,
       u.locale,
       u.timezone,
       -- Custom attributes for {{user.data.*}}: in this round trip, parsed
       -- only for a notification rendered by a template.
       u.data::text AS data,
       u.email IS NOT NULL AS has_email,
       EXISTS (SELECT 1 FROM chopar.telegram_connections t WHERE t.user_id = u.id AND t.active) AS has_telegram,
       EXISTS (SELECT 1 FROM chopar.push_subscriptions p WHERE p.user_id = u.id) AS has_push,
       EXISTS (SELECT 1 FROM chopar.devices v WHERE v.user_id = u.id) AS has_device,
       u.phone IS NOT NULL AS has_phone,
       -- The registered channels the user has an address for (AddressStore::kUser).
       (SELECT string_agg(a.channel, ',') FROM chopar.user_addresses a WHERE a.user_id = u.id)
         AS addressed,
       NULL::bigint AS drawn_id
FROM chopar.users u
WHERE u.id = ANY($1::bigint[]) AND NOT u.erasing
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       nextval(pg_get_serial_sequence('chopar.notifications', 'id'))
FROM generate_series(1, $2::int)
