-- Revokes every open session of an account ($1) at $2 (now or NULL for now()).
UPDATE chopar.console_sessions
SET revoked_at = greatest(coalesce($2::timestamptz, now()), created_at)
WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > coalesce($2::timestamptz, now())
