-- plan: generic
-- Serialises claims per (user, name) within one kind of key: one
-- transaction-scoped advisory lock per distinct key, all taken in one global
-- order (sorted keys) so two claims can never deadlock on each other. The
-- kinds: 'chopar.delivery_rate' per (user, channel) for the hourly limit,
-- 'chopar.throttle' per (user, type) for the types' throttles; the kind
-- begins the hashed text, so the two never share a lock.
-- $1: user ids, $2: channels or types (parallel arrays), $3: the kind.
SELECT count(pg_advisory_xact_lock(k.key)) AS locked
FROM (
  SELECT DISTINCT hashtextextended($3::text || ':' || x.user_id || ':' || x.name, 0) AS key
  FROM unnest($1::bigint[], $2::text[]) AS x(user_id, name)
  ORDER BY 1
) k
