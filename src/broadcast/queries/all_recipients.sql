-- The next $2 users after user id $1 (NULL: from the start), in id order.
SELECT id AS user_id
FROM chopar.users
WHERE id > coalesce($1::bigint, -9223372036854775808)
ORDER BY id
LIMIT $2::int
