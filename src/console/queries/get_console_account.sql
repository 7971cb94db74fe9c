-- One console account by id ($1), locked for the change that follows.
SELECT id, email, role, created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.console_accounts
WHERE id = $1
FOR UPDATE
