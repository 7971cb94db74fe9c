-- Up to $3 subscribers of topic $1 with user_id > $2, in user_id order (the
-- primary key), and whether the topic exists (a row with NULL user_id
-- last); with $4, a key confined to tenant $4, a topic of another tenant or
-- of none is as one that does not exist.
SELECT s.user_id, s.created_at::text AS created_at
FROM (SELECT user_id, created_at FROM chopar.topic_subscribers
      WHERE topic = $1 AND user_id > $2::bigint
        AND ($4::text IS NULL
             OR EXISTS (SELECT 1 FROM chopar.topics WHERE key = $1 AND tenant = $4::text))
      ORDER BY user_id
      LIMIT $3::int) s
UNION ALL
SELECT NULL, NULL
WHERE EXISTS (SELECT 1 FROM chopar.topics WHERE key = $1 AND ($4::text IS NULL OR tenant = $4::text))
