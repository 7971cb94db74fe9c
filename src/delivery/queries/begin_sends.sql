-- Just before a channel's batch is handed to its provider: re-stamps the
-- lease of its rows and marks their send started, only where this worker
-- still owns the claim (still `sending` under its token; $1 ids, $2 claim
-- tokens, parallel arrays). $3: now (NULL: the database's now()); $4: the
-- lease in milliseconds. Returns the rows this worker may send; any other
-- was taken back by another worker while it waited for its channel's turn,
-- or canceled with its broadcast (a claimed row not started yet is).
UPDATE chopar.deliveries d
SET lease_until = coalesce($3::timestamptz, now()) + $4::bigint * interval '1 millisecond',
    send_started_at = coalesce($3::timestamptz, now())
FROM unnest($1::bigint[], $2::uuid[]) AS r(id, token)
WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'sending'
  -- An index condition on the primary key (see apply_claim.sql).
  AND d.id = ANY ($1::bigint[])
RETURNING d.id
