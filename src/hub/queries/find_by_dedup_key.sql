SELECT id FROM chopar.notifications WHERE user_id = $1 AND dedup_key = $2
