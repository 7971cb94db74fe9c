-- Gives claims back to the queue (shutdown drain): rows still held under the
-- given tokens return to `queued`, due at $3, with the reason $4.
-- $1: delivery ids, $2: their claim tokens (parallel arrays).
UPDATE chopar.deliveries d
SET status = 'queued', lease_until = NULL, claim_token = NULL,
    next_attempt_at = $3::timestamptz, last_error = $4, updated_at = $3::timestamptz
FROM unnest($1::bigint[], $2::uuid[]) AS r(id, token)
WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'sending'
