-- Serialises claims per (user, type) for the types' throttles, as
-- lock_rate_keys does per (user, channel): one transaction-scoped advisory
-- lock per distinct key, all taken in one global order (sorted keys).
-- $1: user ids, $2: types (parallel arrays).
SELECT count(pg_advisory_xact_lock(k.key)) AS locked
FROM (
  SELECT DISTINCT hashtextextended('chopar.throttle:' || x.user_id || ':' || x.type, 0) AS key
  FROM unnest($1::bigint[], $2::text[]) AS x(user_id, type)
  ORDER BY 1
) k
