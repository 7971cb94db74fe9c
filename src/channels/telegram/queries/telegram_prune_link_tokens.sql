-- Drops user $1's tokens that expired more than a day before $2: Telegram
-- keeps an update for at most 24 hours, so no /start carrying them can still
-- arrive.
DELETE FROM chopar.telegram_link_tokens
WHERE user_id = $1 AND expires_at < $2::timestamptz - interval '1 day'
