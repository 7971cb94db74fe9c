DELETE FROM chopar.push_subscriptions WHERE id = $2 AND user_id = $1
