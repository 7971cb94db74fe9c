-- The scheduler's idle lookup: the earliest next_fire_at and how many are due
-- at $1. Both read only the partial index schedules_due (the minimum is its
-- first entry; the count walks just the due entries), never every schedule.
SELECT (SELECT min(next_fire_at) FROM schedules WHERE enabled)::text AS next_fire_at,
       (SELECT count(*) FROM schedules WHERE enabled AND next_fire_at <= $1::timestamptz) AS due
