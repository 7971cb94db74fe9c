-- Counts one sign-in attempt against its email key ($1; NULL: none) and its
-- client address ($2) in their windows ($3 now or NULL for now(), $4 the
-- window in seconds): a row whose window has passed starts a new one. The
-- rows stay locked until the transaction ends, email first, so attempts
-- at once are counted one after another. Returns each row's failures and
-- the seconds left in its window.
INSERT INTO chopar.console_sign_in_failures AS f (kind, key, window_started_at, failures)
SELECT k.kind, k.key, coalesce($3::timestamptz, now()), 1
FROM (VALUES (1, 'email', $1::text), (2, 'address', $2::text)) AS k(ord, kind, key)
WHERE k.key IS NOT NULL
ORDER BY k.ord
ON CONFLICT (kind, key) DO UPDATE
SET failures = CASE WHEN f.window_started_at <= EXCLUDED.window_started_at - $4::float8 * interval '1 second'
                    THEN 1 ELSE f.failures + 1 END,
    window_started_at = CASE WHEN f.window_started_at <= EXCLUDED.window_started_at - $4::float8 * interval '1 second'
                             THEN EXCLUDED.window_started_at ELSE f.window_started_at END
RETURNING f.kind, f.failures,
          ceil(extract(epoch FROM f.window_started_at + $4::float8 * interval '1 second'
                                  - coalesce($3::timestamptz, now())))::bigint AS seconds_left
