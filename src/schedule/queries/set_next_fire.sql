-- Moves schedules to new next_fire_at values. $1: JSON array of
-- {key, next_fire_at, last_error}; $2: now.
UPDATE chopar.schedules s
SET next_fire_at = x.next_fire_at, last_error = x.last_error, updated_at = $2::timestamptz
FROM jsonb_to_recordset($1::jsonb) AS x(key text, next_fire_at timestamptz, last_error text)
WHERE s.key = x.key
