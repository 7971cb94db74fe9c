-- User $2's notification $1: its actions (a JSON array, empty for none)
-- and whether it is unread, its row locked until the press is recorded
-- (PressAction).
SELECT coalesce(actions, '[]')::text AS actions, read_at IS NULL AS unread
FROM chopar.notifications
WHERE id = $1 AND user_id = $2
FOR UPDATE
