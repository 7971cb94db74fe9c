-- The same page restricted to unread rows (served by the partial unread index).
SELECT n.id, n.user_id, n.type, n.title, n.body, n.link, n.data::text AS data, n.critical,
       n.dedup_key, n.tenant, n.category, coalesce(to_json(n.tags), '[]')::text AS tags,
       coalesce(n.actions, '[]')::text AS actions, n.created_at::text AS created_at,
       n.seen_at::text AS seen_at, n.read_at::text AS read_at,
       n.archived_at::text AS archived_at, n.snoozed_until::text AS snoozed_until,
       (extract(epoch FROM n.created_at) * 1000000)::bigint AS created_micros
FROM chopar.notifications n
WHERE n.user_id = $1 AND n.read_at IS NULL
  AND (n.created_at, n.id) < (to_timestamp($2::bigint / 1000000.0), $3::bigint)
  -- The row comparison is not used for partition pruning; this bound is.
  AND n.created_at <= to_timestamp($2::bigint / 1000000.0)
  -- $5: the tenant's only (NULL: every notification).
  AND ($5::text IS NULL OR n.tenant = $5::text)
  -- $6, $7: archived ones only, or none of them; snoozed ones likewise.
  AND (n.archived_at IS NOT NULL) = $6::boolean AND (n.snoozed_until IS NOT NULL) = $7::boolean
  -- $8 categories, $9 a tag (NULL: any); $10 seen (true) or unseen (false)
  -- ones only (NULL: both). Read means seen.
  AND ($8::text[] IS NULL OR n.category = ANY ($8::text[]))
  AND ($9::text IS NULL OR n.tags @> ARRAY[$9::text])
  AND ($10::boolean IS NULL
       OR (n.seen_at IS NOT NULL OR n.read_at IS NOT NULL) = $10::boolean)
ORDER BY n.created_at DESC, n.id DESC
LIMIT $4
