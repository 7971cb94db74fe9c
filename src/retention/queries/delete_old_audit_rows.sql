-- Deletes, of the $1 oldest audit rows (by id, the order they were written
-- in), those written before now - $2 days ($3: the clock's now, NULL: the
-- database's). Reads no more than $1 rows however long the log is. Returns
-- one row per row deleted.
WITH oldest AS (
  SELECT id, at FROM chopar.audit_log ORDER BY id LIMIT $1::int
)
DELETE FROM chopar.audit_log a
USING oldest
WHERE a.id = oldest.id
  AND oldest.at < COALESCE($3::timestamptz, now()) - $2::int * interval '1 day'
RETURNING 1
