DELETE FROM chopar.telegram_connections WHERE user_id = $1
