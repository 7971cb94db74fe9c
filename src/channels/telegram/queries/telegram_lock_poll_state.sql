-- Bot $1's getUpdates offset, locked until the transaction ends.
SELECT update_offset FROM telegram_poll_state WHERE bot = $1 FOR UPDATE
