SELECT coalesce(max(id), 0) AS id FROM chopar.notifications WHERE user_id = $1
