-- A new console account ($1 email, $2 role, $3 password hash, $4 now or
-- NULL for now()); a unique violation for an email that exists in any case.
INSERT INTO chopar.console_accounts (email, role, password_hash, created_at, updated_at)
VALUES ($1, $2, $3, coalesce($4::timestamptz, now()), coalesce($4::timestamptz, now()))
RETURNING id, email, role, created_at::text AS created_at, updated_at::text AS updated_at
