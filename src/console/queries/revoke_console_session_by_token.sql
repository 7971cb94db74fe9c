-- Revokes the session of a token ($1: its SHA-256 in hex) at $2 (now or
-- NULL for now()): signing out. Nothing for an unknown or revoked token.
UPDATE chopar.console_sessions
SET revoked_at = greatest(coalesce($2::timestamptz, now()), created_at)
WHERE token_hash = decode($1, 'hex') AND revoked_at IS NULL
