-- The next $3 subscribers of topic $1 after user id $2 (NULL: from the
-- start), in user id order: one range scan of the primary key; with $4 (a
-- broadcast's "where") only those whose data contains it, a primary-key
-- lookup of each.
SELECT s.user_id
FROM chopar.topic_subscribers s
WHERE s.topic = $1 AND s.user_id > coalesce($2::bigint, -9223372036854775808)
  AND ($4::jsonb IS NULL
       OR EXISTS (SELECT 1 FROM chopar.users u WHERE u.id = s.user_id AND u.data @> $4::jsonb))
ORDER BY s.user_id
LIMIT $3::int
