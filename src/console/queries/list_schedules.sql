-- Schedules in key order after the keyset cursor $3 (a key), optionally of
-- one user $1 (GET /v1/schedules): the columns schedule::ReadSchedule reads.
SELECT *
FROM chopar.schedule_rows
WHERE ($1::bigint IS NULL OR user_id = $1)
  AND key > $3
ORDER BY key
LIMIT $2
