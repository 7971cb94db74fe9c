-- An erasure's batch: up to $2 Telegram connect tokens of user $1.
DELETE FROM chopar.telegram_link_tokens
WHERE token IN (SELECT token FROM chopar.telegram_link_tokens WHERE user_id = $1 LIMIT $2)
