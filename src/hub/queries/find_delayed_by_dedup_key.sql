-- The id a user's dedup key $2 stands for, delayed or not: a delayed
-- notification's drawn id, else the notification's.
SELECT coalesce((SELECT d.notification_id FROM chopar.delayed_notifications d
                 WHERE d.user_id = $1 AND d.dedup_key = $2),
                (SELECT n.id FROM chopar.notifications n WHERE n.user_id = $1 AND n.dedup_key = $2)) AS id
