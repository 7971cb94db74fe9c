-- The open session of a token ($1: its SHA-256 in hex) at $2 (now or NULL
-- for now()), with its account; a bootstrap key's session only while the
-- key's SHA-256 is $4 (hex; NULL: none is). Moves last_seen_at to now when
-- it is $3 seconds old or more.
WITH found AS (
  SELECT s.id, s.csrf_token, s.account_id, s.created_at, s.last_seen_at, s.expires_at,
         s.address, s.user_agent, a.email, a.role, a.created_at AS account_created_at,
         a.updated_at AS account_updated_at
  FROM chopar.console_sessions s
  LEFT JOIN chopar.console_accounts a ON a.id = s.account_id
  WHERE s.token_hash = decode($1, 'hex')
    AND s.revoked_at IS NULL
    AND s.expires_at > coalesce($2::timestamptz, now())
    AND (s.account_id IS NOT NULL OR s.bootstrap_key_hash = decode($4, 'hex'))
),
touched AS (
  UPDATE chopar.console_sessions s
  SET last_seen_at = coalesce($2::timestamptz, now())
  FROM found
  WHERE s.id = found.id
    AND s.last_seen_at <= coalesce($2::timestamptz, now()) - $3::float8 * interval '1 second'
  RETURNING s.last_seen_at
)
SELECT found.id, found.csrf_token, found.account_id, found.created_at::text AS created_at,
       coalesce((SELECT last_seen_at FROM touched), found.last_seen_at)::text AS last_seen_at,
       found.expires_at::text AS expires_at, found.address, found.user_agent, found.email,
       found.role, found.account_created_at::text AS account_created_at,
       found.account_updated_at::text AS account_updated_at
FROM found
