-- Sets an account's ($1) role ($2); $3 now or NULL for now().
UPDATE chopar.console_accounts
SET role = $2, updated_at = greatest(coalesce($3::timestamptz, now()), created_at)
WHERE id = $1
RETURNING id, email, role, created_at::text AS created_at, updated_at::text AS updated_at
