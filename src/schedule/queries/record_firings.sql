-- Advances claimed schedules after their occurrences fired or were skipped.
-- Parallel arrays, one element per schedule: $1 key, $2 next_fire_at,
-- $3 last_due_at (newest fired due instant, or NULL), $4 skipped,
-- $5 last_skipped_at (or NULL), $6 last_error (or NULL); $7: now.
UPDATE chopar.schedules s
SET next_fire_at = x.next_fire_at,
    last_fired_at = CASE WHEN x.last_due_at IS NULL THEN s.last_fired_at ELSE $7::timestamptz END,
    last_due_at = coalesce(x.last_due_at, s.last_due_at),
    last_skipped_at = coalesce(x.last_skipped_at, s.last_skipped_at),
    skipped_count = s.skipped_count + x.skipped,
    last_error = x.last_error
FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::bigint[], $5::timestamptz[], $6::text[])
  AS x(key, next_fire_at, last_due_at, skipped, last_skipped_at, last_error)
WHERE s.key = x.key
  -- An index condition on the primary key whatever the planner guesses for
  -- the unnested rows, so a cached plan never scans the whole table.
  AND s.key = ANY ($1::text[])
