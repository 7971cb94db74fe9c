-- Serialises notifiers per digest window key (user, type, rendered key), so
-- two never open two windows for one key: one transaction-scoped advisory
-- lock per distinct key, taken in one global order (sorted). $1 user ids,
-- $2 types, $3 keys (parallel arrays).
SELECT count(pg_advisory_xact_lock(k.key)) AS locked
FROM (
  SELECT DISTINCT hashtextextended('chopar.digest:' || x.user_id || ':' || x.type || ':' || x.key, 0) AS key
  FROM unnest($1::bigint[], $2::text[], $3::text[]) AS x(user_id, type, key)
  ORDER BY 1
) k
