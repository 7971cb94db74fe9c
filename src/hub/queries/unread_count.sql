SELECT count(*) AS count FROM chopar.notifications WHERE user_id = $1 AND read_at IS NULL
