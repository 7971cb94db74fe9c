-- Serialises claims per (user, channel) for the hourly limit: one
-- transaction-scoped advisory lock per distinct key, all taken in one global
-- order (sorted keys) so two claims can never deadlock on each other.
-- $1: user ids, $2: channels (parallel arrays).
SELECT count(pg_advisory_xact_lock(k.key)) AS locked
FROM (
  SELECT DISTINCT hashtextextended('chopar.delivery_rate:' || x.user_id || ':' || x.channel, 0) AS key
  FROM unnest($1::bigint[], $2::text[]) AS x(user_id, channel)
  ORDER BY 1
) k
