-- Claims up to $1 due undispatched events, oldest first through the partial
-- index, skipping rows another relay holds, and marks them dispatched
-- (attempts + 1) in the same statement: the relay then publishes them and,
-- before COMMIT, puts back the ones a target failed (mark_failed). A relay
-- that dies before COMMIT leaves them as they were. The rows are updated
-- where the claim locked them (ctid), without a second index lookup; the
-- rows come back in no particular order.
UPDATE chopar.outbox
SET dispatched_at = now(), attempts = attempts + 1
WHERE ctid = ANY (ARRAY(SELECT ctid FROM chopar.outbox
                        WHERE dispatched_at IS NULL AND next_attempt_at <= now()
                        ORDER BY id
                        LIMIT $1
                        FOR UPDATE SKIP LOCKED))
RETURNING id, event_id, type, user_id, payload, created_at, attempts - 1 AS attempts, delivered_to
