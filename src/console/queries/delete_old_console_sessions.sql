-- Forgets sessions that expired over a week before $1 (now or NULL for now()).
DELETE FROM chopar.console_sessions
WHERE expires_at < coalesce($1::timestamptz, now()) - interval '7 days'
