-- An erasure's batch: up to $2 outbox events about user $1, relayed or not
-- (an event not relayed yet is dropped: it would tell of an erased user).
DELETE FROM chopar.outbox
WHERE event_id IN (SELECT event_id FROM chopar.outbox WHERE user_id = $1 LIMIT $2)
