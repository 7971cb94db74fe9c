-- The next $3 subscribers of topic $1 after user id $2 (NULL: from the
-- start), in user id order: one range scan of the primary key.
SELECT user_id
FROM chopar.topic_subscribers
WHERE topic = $1 AND user_id > coalesce($2::bigint, -9223372036854775808)
ORDER BY user_id
LIMIT $3::int
