-- An erasure's batch: user $1's Telegram connection ($2: the batch, unused
-- for one row at most, kept for the steps' one signature).
DELETE FROM chopar.telegram_connections WHERE user_id = $1 AND $2::int > 0
