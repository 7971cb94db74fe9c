-- The bot was blocked ($2 = false) or unblocked ($2 = true) in chat $1: every
-- connection to that chat follows. Returns the users whose state changed.
UPDATE chopar.telegram_connections
SET active = $2, updated_at = now()
WHERE chat_id = $1 AND active <> $2
RETURNING user_id
