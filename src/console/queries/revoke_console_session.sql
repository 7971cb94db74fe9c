-- Revokes a session ($1) at $2 (now or NULL for now()); a revoked one keeps
-- its first revoked_at. Returns the row when the session exists.
UPDATE chopar.console_sessions
SET revoked_at = coalesce(revoked_at, greatest(coalesce($2::timestamptz, now()), created_at))
WHERE id = $1
RETURNING id
