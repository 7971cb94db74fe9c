-- Applies the claim's decisions to rows this transaction has locked.
-- $1: JSON array of {id, action, until, reason} with action 'send' (→
-- sending with a fresh claim token and a lease until $3), 'sent' (→ sent:
-- a channel that sends in claims already recorded it in this transaction),
-- 'defer' (stays queued until `until`), 'skip' (→ skipped) or 'fail' (→
-- failed); $2: now. Returns the claim token and attempt number of the rows to
-- send.
UPDATE deliveries d
SET status = CASE a.action WHEN 'send' THEN 'sending' WHEN 'sent' THEN 'sent' WHEN 'defer' THEN 'queued'
                           WHEN 'skip' THEN 'skipped' ELSE 'failed' END,
    attempts = d.attempts + CASE WHEN a.action IN ('send', 'sent') THEN 1 ELSE 0 END,
    next_attempt_at = CASE WHEN a.action = 'defer' THEN a.until ELSE d.next_attempt_at END,
    lease_until = CASE WHEN a.action = 'send' THEN $3::timestamptz END,
    claim_token = CASE WHEN a.action = 'send' THEN gen_random_uuid() END,
    claimed_at = CASE WHEN a.action IN ('send', 'sent') THEN $2::timestamptz ELSE d.claimed_at END,
    sent_at = CASE WHEN a.action = 'sent' THEN $2::timestamptz ELSE d.sent_at END,
    last_error = coalesce(a.reason, d.last_error),
    updated_at = $2::timestamptz
FROM jsonb_to_recordset($1::jsonb) AS a(id bigint, action text, until timestamptz, reason text)
WHERE d.id = a.id
  -- The same ids as an array: an index condition on the primary key whatever
  -- the planner guesses for the JSON rows (it assumes 100), so a cached plan
  -- never falls back to scanning the whole table.
  AND d.id = ANY (ARRAY(SELECT (e->>'id')::bigint FROM jsonb_array_elements($1::jsonb) e))
RETURNING d.id, d.status, d.claim_token::text AS claim_token, d.attempts
