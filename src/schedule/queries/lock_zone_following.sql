-- A user's enabled schedules that follow the user's zone and are not due yet
-- at $2 (a due occurrence has already happened in the old zone: it stays due
-- and fires). Locked, so a scheduler firing one of them finishes first and
-- its advanced next_fire_at is what gets recomputed.
SELECT key, cron
FROM chopar.schedules
WHERE user_id = $1 AND timezone IS NULL AND enabled
  AND (next_fire_at IS NULL OR next_fire_at > $2::timestamptz)
ORDER BY key
FOR UPDATE
