-- Creates bot $1's offset row at 0 (the earliest unconfirmed update) if it has none.
INSERT INTO chopar.telegram_poll_state (bot, update_offset) VALUES ($1, 0)
ON CONFLICT (bot) DO NOTHING
