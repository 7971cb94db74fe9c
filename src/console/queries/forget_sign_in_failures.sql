-- Deletes up to 100 failure counts whose window ($2 seconds) has passed
-- ($1 now or NULL for now()); rows another sign-in holds are left for later.
DELETE FROM chopar.console_sign_in_failures
WHERE (kind, key) IN (
  SELECT kind, key FROM chopar.console_sign_in_failures
  WHERE window_started_at <= coalesce($1::timestamptz, now()) - $2::float8 * interval '1 second'
  LIMIT 100
  FOR UPDATE SKIP LOCKED)
