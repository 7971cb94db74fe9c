SELECT coalesce(max(id), 0) AS id FROM notifications WHERE user_id = $1
