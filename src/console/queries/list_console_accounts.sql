-- Every console account, in id order.
SELECT id, email, role, created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.console_accounts
ORDER BY id
