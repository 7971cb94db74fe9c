-- A page of suppressions, newest first: $1 channel (NULL: both), $2 address
-- (NULL: all), $3 the last id shown (NULL: from the newest), $4 limit.
SELECT s.id, s.channel, s.address, s.reason, s.provider, s.detail, s.since::text AS since
FROM chopar.suppressions s
WHERE ($1::text IS NULL OR s.channel = $1)
  AND ($2::text IS NULL OR s.address = $2)
  AND ($3::bigint IS NULL OR s.id < $3)
ORDER BY s.id DESC
LIMIT $4
