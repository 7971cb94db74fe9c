-- Events every target has: done. The attempt that succeeded counts too.
UPDATE chopar.outbox
SET dispatched_at = now(), attempts = attempts + 1
WHERE id = ANY($1::bigint[])
