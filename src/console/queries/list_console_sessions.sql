-- The open sessions at $2 (now or NULL for now()), of one account ($1) or of
-- all (NULL), newest first, at most 500.
SELECT s.id, s.csrf_token, s.account_id, s.created_at::text AS created_at,
       s.last_seen_at::text AS last_seen_at, s.expires_at::text AS expires_at, s.address,
       s.user_agent, a.email, a.role, a.created_at::text AS account_created_at,
       a.updated_at::text AS account_updated_at
FROM chopar.console_sessions s
LEFT JOIN chopar.console_accounts a ON a.id = s.account_id
WHERE ($1::bigint IS NULL OR s.account_id = $1)
  AND s.revoked_at IS NULL
  AND s.expires_at > coalesce($2::timestamptz, now())
ORDER BY s.id DESC
LIMIT 500
