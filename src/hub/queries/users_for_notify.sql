-- Preferences and addressability of the users a batch of notifications is for.
SELECT u.id,
       u.preferences::text AS preferences,
       u.email IS NOT NULL AS has_email,
       EXISTS (SELECT 1 FROM chopar.telegram_connections t WHERE t.user_id = u.id AND t.active) AS has_telegram,
       EXISTS (SELECT 1 FROM chopar.push_subscriptions p WHERE p.user_id = u.id) AS has_push,
       u.phone IS NOT NULL AS has_sms
FROM chopar.users u
WHERE u.id = ANY($1::bigint[])
