-- Opens a session: $1 the token's SHA-256 (hex), $2 CSRF token, $3 account
-- id (NULL: a bootstrap key's session, $4 that key's SHA-256 in hex),
-- $5 now or NULL for now(), $6 lifetime in seconds, $7 address, $8 user
-- agent. A bootstrap key's session is only opened while no account exists
-- (no row returned otherwise).
INSERT INTO chopar.console_sessions (token_hash, csrf_token, account_id, bootstrap_key_hash,
                                     created_at, last_seen_at, expires_at, address, user_agent)
SELECT decode($1, 'hex'), $2, $3, decode($4, 'hex'),
       coalesce($5::timestamptz, now()), coalesce($5::timestamptz, now()),
       coalesce($5::timestamptz, now()) + $6::float8 * interval '1 second', $7, $8
WHERE $3::bigint IS NOT NULL OR NOT EXISTS (SELECT FROM chopar.console_accounts)
RETURNING id, created_at::text AS created_at, last_seen_at::text AS last_seen_at,
          expires_at::text AS expires_at
