-- When the earliest delayed notification is due (NULL: none): one lookup at
-- the start of delayed_notifications_due.
SELECT min(due_at)::text AS due_at FROM chopar.delayed_notifications
