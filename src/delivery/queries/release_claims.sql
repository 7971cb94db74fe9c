-- Gives claims back to the queue (shutdown drain): rows still held under the
-- given tokens and not yet handed to their provider return to `queued`, due
-- at $3 (NULL: the database's now()), with the reason $4. A row whose send
-- has started is never released while it may still be running: its outcome
-- is recorded, or its lease runs out. $1: delivery ids, $2: their claim
-- tokens (parallel arrays). Returns the rows released.
UPDATE chopar.deliveries d
SET status = 'queued', lease_until = NULL, claim_token = NULL,
    next_attempt_at = coalesce($3::timestamptz, now()), last_error = $4,
    updated_at = coalesce($3::timestamptz, now())
FROM unnest($1::bigint[], $2::uuid[]) AS r(id, token)
WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'sending'
  AND d.send_started_at IS NULL
RETURNING d.id
