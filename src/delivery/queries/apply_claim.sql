-- plan: generic
-- Applies the claim's decisions to rows this transaction has locked.
-- Parallel arrays, one element per row: $1 id, $2 action, $3 until, $4
-- reason. The action is 'send' (→ sending with a fresh claim token and a
-- lease until $6), 'sent' (→ sent: a channel that sends in claims already
-- recorded it in this transaction; its `provider` is cleared), 'defer' (stays queued until `until`),
-- 'skip' (→ skipped), 'cancel' (→ canceled: escalate-if-unread found it
-- read) or 'fail' (→ failed); $5: now. A row claimed to send
-- has not started sending yet (send_started_at NULL until begin_sends).
-- $7 and $8: the earliest and latest created_at of the rows, the partition
-- key: the plan leaves out the weeks outside them, so each id is looked up
-- in its own week's partition, not in every one, and the plan is made over
-- that partition alone.
-- Generic, as the claim's other statements, for the few rows of most
-- claims; a claim of many rows runs it planned for each execution
-- (db::Plan::kCustom, claim.cpp): not knowing how many rows the arrays
-- hold, the generic plan joins them to the rows by a nested loop, 3× slower
-- on a batch of 500 than the hash join of a custom plan, which, pruned to
-- one partition, is cheap to make for a batch that large (made with nested
-- loops and bitmap scans off, db/query.hpp says why).
-- Returns the claim token and attempt number of the rows to send.
UPDATE chopar.deliveries d
SET status = CASE a.action WHEN 'send' THEN 'sending' WHEN 'sent' THEN 'sent' WHEN 'defer' THEN 'queued'
                           WHEN 'skip' THEN 'skipped' WHEN 'cancel' THEN 'canceled' ELSE 'failed' END,
    attempts = d.attempts + CASE WHEN a.action IN ('send', 'sent') THEN 1 ELSE 0 END,
    next_attempt_at = CASE WHEN a.action = 'defer' THEN a.until ELSE d.next_attempt_at END,
    lease_until = CASE WHEN a.action = 'send' THEN $6::timestamptz END,
    claim_token = CASE WHEN a.action = 'send' THEN gen_random_uuid() END,
    claimed_at = CASE WHEN a.action IN ('send', 'sent') THEN $5::timestamptz ELSE d.claimed_at END,
    sent_at = CASE WHEN a.action = 'sent' THEN $5::timestamptz ELSE d.sent_at END,
    -- The sink has no provider: an earlier attempt's is no longer who has it.
    provider = CASE WHEN a.action = 'sent' THEN NULL ELSE d.provider END,
    send_started_at = CASE WHEN a.action IN ('send', 'sent') THEN NULL ELSE d.send_started_at END,
    last_error = coalesce(a.reason, d.last_error),
    updated_at = $5::timestamptz
FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[]) AS a(id, action, until, reason)
WHERE d.id = a.id
  -- The ids again as an index condition on the primary key, whatever the
  -- planner guesses for the unnested rows, so a cached plan never falls back
  -- to scanning the whole table.
  AND d.id = ANY ($1::bigint[])
  AND d.created_at BETWEEN $7::timestamptz AND $8::timestamptz
RETURNING d.id, d.status, d.claim_token::text AS claim_token, d.attempts
