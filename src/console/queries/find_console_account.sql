-- The console account of an email ($1) in any case, with its password hash.
SELECT id, email, role, password_hash, created_at::text AS created_at,
       updated_at::text AS updated_at
FROM chopar.console_accounts
WHERE lower(email) = lower($1)
