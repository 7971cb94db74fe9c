-- A one-time connect token $1 for user $2, made at $3 and valid until $4; no
-- row when the user does not exist.
INSERT INTO chopar.telegram_link_tokens (token, user_id, created_at, expires_at)
SELECT $1, u.id, $3::timestamptz, $4::timestamptz FROM chopar.users u WHERE u.id = $2 AND NOT u.erasing
RETURNING token
