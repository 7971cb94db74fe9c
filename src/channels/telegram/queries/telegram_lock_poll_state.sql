-- Bot $1's getUpdates offset, locked until the transaction ends.
SELECT update_offset FROM chopar.telegram_poll_state WHERE bot = $1 FOR UPDATE
