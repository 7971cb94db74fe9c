-- The heartbeat of sends in progress: re-stamps the lease of every row this
-- worker is sending ($1 ids, $2 claim tokens, parallel arrays) that it still
-- owns. $3: now (NULL: the database's now()); $4: the lease in milliseconds.
-- Returns the rows renewed.
UPDATE chopar.deliveries d
SET lease_until = coalesce($3::timestamptz, now()) + $4::bigint * interval '1 millisecond'
FROM unnest($1::bigint[], $2::uuid[]) AS r(id, token)
WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'sending'
  AND d.id = ANY ($1::bigint[])
RETURNING d.id
