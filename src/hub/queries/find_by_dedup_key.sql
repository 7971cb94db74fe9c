-- The id a user's dedup key $2 stands for, delayed or not: one probe of
-- notification_dedup's primary key.
SELECT notification_id AS id FROM chopar.notification_dedup WHERE user_id = $1 AND dedup_key = $2
