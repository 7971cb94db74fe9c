-- The API's user objects (hub::UserJson) of the ids in $1, in id order: one
-- user for GET /v1/users/{id}, a page of them for the console's directory.
SELECT u.id, u.email, u.phone, u.timezone, u.locale, u.preferences::text AS preferences,
       to_char(u.quiet_start, 'HH24:MI') AS quiet_start, to_char(u.quiet_end, 'HH24:MI') AS quiet_end,
       u.admin, u.data::text AS data, u.created_at, u.updated_at,
       t.chat_id AS telegram_chat_id, t.active AS telegram_active,
       (SELECT count(*) FROM chopar.push_subscriptions p WHERE p.user_id = u.id) AS push_subscriptions,
       (SELECT count(*) FROM chopar.devices v WHERE v.user_id = u.id) AS devices,
       (SELECT json_object_agg(a.channel, a.address ORDER BY a.channel)
        FROM chopar.user_addresses a WHERE a.user_id = u.id)::text AS addresses,
       -- Tenant keys hold no comma.
       (SELECT string_agg(m.tenant, ',' ORDER BY m.tenant)
        FROM chopar.user_tenants m WHERE m.user_id = u.id) AS tenants
FROM chopar.users u
LEFT JOIN chopar.telegram_connections t ON t.user_id = u.id
WHERE u.id = ANY ($1::bigint[]) AND NOT u.erasing
ORDER BY u.id
