-- One schedule (GET /v1/schedules/{key}): the columns schedule::ReadSchedule
-- reads.
SELECT * FROM chopar.schedule_rows WHERE key = $1
