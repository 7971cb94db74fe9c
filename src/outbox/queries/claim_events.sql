-- Due undispatched events, oldest first, through the partial index on
-- undispatched rows; rows another relay holds are skipped. The row locks
-- last until the batch's outcomes are recorded.
SELECT id, event_id, type, user_id, payload, created_at, attempts, delivered_to
FROM chopar.outbox
WHERE dispatched_at IS NULL AND next_attempt_at <= now()
ORDER BY id
LIMIT $1
FOR UPDATE SKIP LOCKED
