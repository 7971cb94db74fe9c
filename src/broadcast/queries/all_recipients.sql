-- The next $2 users after user id $1 (NULL: from the start), in id order;
-- with $3 (a broadcast's "where") only those whose data contains it.
SELECT id AS user_id
FROM chopar.users
WHERE id > coalesce($1::bigint, -9223372036854775808)
  AND ($3::jsonb IS NULL OR data @> $3::jsonb)
ORDER BY id
LIMIT $2::int
