-- A user's devices, oldest first; no row for a user that does not exist
-- (exists is false then), one row with a NULL id for a user without any.
SELECT v.id, v.platform, v.token, v.app, v.created_at::text AS created_at,
       v.updated_at::text AS updated_at
FROM chopar.users u
LEFT JOIN chopar.devices v ON v.user_id = u.id
WHERE u.id = $1 AND NOT u.erasing
ORDER BY v.id
