-- One schedule as the API shows it (GET /v1/schedules/{key}).
SELECT doc::text AS doc FROM chopar.schedules_api WHERE key = $1
