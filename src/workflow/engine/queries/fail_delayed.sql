-- Marks claimed delayed notifications whose request no longer makes a
-- notification failed, in the releaser's transaction: kept with the reason
-- ($1 ids, $2 reasons, parallel arrays; cut to 1,000 characters), out of
-- the due set from then on. $3: now (NULL: the database's now()).
UPDATE chopar.delayed_notifications d
SET failed_at = coalesce($3::timestamptz, now()), last_error = left(f.reason, 1000)
FROM unnest($1::bigint[], $2::text[]) AS f(id, reason)
WHERE d.id = f.id
