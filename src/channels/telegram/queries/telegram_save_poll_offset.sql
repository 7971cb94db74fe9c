-- Advances bot $1's getUpdates offset to $2 (never backwards).
UPDATE chopar.telegram_poll_state
SET update_offset = $2, updated_at = now()
WHERE bot = $1 AND update_offset < $2
