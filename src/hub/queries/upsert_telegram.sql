INSERT INTO chopar.telegram_connections AS t (user_id, chat_id, active)
SELECT id, $2, true FROM chopar.users WHERE id = $1 AND NOT erasing
ON CONFLICT (user_id) DO UPDATE SET chat_id = EXCLUDED.chat_id, active = true, updated_at = now()
RETURNING user_id
