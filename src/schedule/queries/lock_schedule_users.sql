-- The zones of the users a batch of schedules is for, locked FOR SHARE so a
-- concurrent time-zone change (which locks the user row) waits for this
-- transaction or is seen by it: the next_fire_at computed from these zones
-- is never stale. Missing ids are users that do not exist. $1: bigint[].
SELECT id, timezone
FROM chopar.users
WHERE id = ANY($1::bigint[]) AND NOT erasing
ORDER BY id
FOR SHARE
