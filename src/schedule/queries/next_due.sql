-- The scheduler's idle lookup: the earliest next_fire_at and how many are due
-- at $1. The minimum is the first entry of the partial index schedules_due;
-- the due entries are counted only when the minimum is due, so an idle
-- scheduler reads one index entry, never every schedule.
SELECT m.next_fire_at::text AS next_fire_at,
       CASE WHEN m.next_fire_at <= $1::timestamptz
            THEN (SELECT count(*) FROM chopar.schedules WHERE enabled AND next_fire_at <= $1::timestamptz)
            ELSE 0
       END AS due
FROM (SELECT min(next_fire_at) AS next_fire_at FROM chopar.schedules WHERE enabled) m
