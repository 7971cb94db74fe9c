-- A snooze was set: it may end before the one the snooze returners wait
-- for (src/workflow/engine/snooze_returner.hpp).
SELECT pg_notify('chopar_snoozes', '')
