-- When a fan-out loop should look again: seconds (the database's clock)
-- until a broadcast with work left (running, or canceled with deliveries
-- left to cancel) becomes claimable (due, and its lease run out), NULL when
-- there is none.
SELECT extract(epoch FROM min(greatest(due_at, coalesce(lease_until, due_at))) - now())::float8
FROM chopar.broadcasts
WHERE status = 'running' OR cancel_cursor IS NOT NULL
