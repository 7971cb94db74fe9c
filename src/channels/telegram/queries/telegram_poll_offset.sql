-- Bot $1's getUpdates offset (no row: 0).
SELECT update_offset FROM chopar.telegram_poll_state WHERE bot = $1
