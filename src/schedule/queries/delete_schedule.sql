DELETE FROM chopar.schedules WHERE key = $1
