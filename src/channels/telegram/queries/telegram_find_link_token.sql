-- Token $1 as of $2, with its user's locale; locked until the transaction
-- ends, so two deliveries of the same /start take turns.
SELECT t.user_id, t.expires_at <= $2::timestamptz AS expired, t.used_chat_id, u.locale
FROM chopar.telegram_link_tokens t
JOIN chopar.users u ON u.id = t.user_id AND NOT u.erasing
WHERE t.token = $1
FOR UPDATE OF t
