-- User $1's unseen and unread notifications, neither archived nor snoozed,
-- in the categories $2, with the tag $3, in the tenant $4 (each NULL: any).
-- Marking read marks seen, so every unseen one is unread too: the partial
-- unread index finds both.
SELECT count(*) FILTER (WHERE seen_at IS NULL) AS unseen, count(*) AS unread
FROM chopar.notifications
WHERE user_id = $1 AND read_at IS NULL AND archived_at IS NULL AND snoozed_until IS NULL
  AND ($2::text[] IS NULL OR category = ANY ($2::text[]))
  AND ($3::text IS NULL OR tags @> ARRAY[$3::text])
  AND ($4::text IS NULL OR tenant = $4::text)
