-- Advances claimed schedules after their occurrences fired or were skipped.
-- $1: JSON array of {key, next_fire_at, last_due_at (newest fired due instant
-- or null), skipped, last_skipped_at (or null), last_error}; $2: now.
UPDATE schedules s
SET next_fire_at = x.next_fire_at,
    last_fired_at = CASE WHEN x.last_due_at IS NULL THEN s.last_fired_at ELSE $2::timestamptz END,
    last_due_at = coalesce(x.last_due_at, s.last_due_at),
    last_skipped_at = coalesce(x.last_skipped_at, s.last_skipped_at),
    skipped_count = s.skipped_count + x.skipped,
    last_error = x.last_error
FROM jsonb_to_recordset($1::jsonb)
  AS x(key text, next_fire_at timestamptz, last_due_at timestamptz, skipped bigint,
       last_skipped_at timestamptz, last_error text)
WHERE s.key = x.key
