-- Wakes every scheduler at COMMIT: the earliest next_fire_at may have moved.
SELECT pg_notify('chopar_schedules', '')
