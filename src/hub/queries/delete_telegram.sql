DELETE FROM telegram_connections WHERE user_id = $1
