DELETE FROM schedules WHERE key = $1
