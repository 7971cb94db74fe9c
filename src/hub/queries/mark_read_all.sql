UPDATE notifications SET read_at = $2 WHERE user_id = $1 AND read_at IS NULL
