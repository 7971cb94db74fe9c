-- The oldest pending erasure no other transaction holds, locked until this
-- one ends: one batch of one user's rows at a time, whichever process.
SELECT user_id FROM chopar.user_erasures
WHERE completed_at IS NULL
ORDER BY requested_at
LIMIT 1
FOR UPDATE SKIP LOCKED
