-- When a fan-out loop should look again: seconds (the database's clock)
-- until a running broadcast becomes claimable (due, and its lease run out),
-- NULL when none runs.
SELECT extract(epoch FROM min(greatest(due_at, coalesce(lease_until, due_at))) - now())::float8
FROM chopar.broadcasts
WHERE status = 'running'
