-- When the earliest delayed notification still waiting is due (NULL: none):
-- one lookup at the start of delayed_notifications_waiting.
SELECT min(due_at)::text AS due_at FROM chopar.delayed_notifications WHERE failed_at IS NULL
