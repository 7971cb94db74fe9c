-- Forgets up to $1 recorded action presses (chopar.notification_actions)
-- of notifications retention dropped: the presses made before every
-- partition of notifications left. A press comes at or after its
-- notification, so each of them names a notification that is gone; a
-- press made later than that goes with a later partition. Oldest first
-- through notification_actions_pressed. Returns one row per press
-- forgotten.
WITH kept AS (
  SELECT min(p.lower_bound) AS since
  FROM chopar.history_partitions('chopar.notifications'::regclass) p
)
DELETE FROM chopar.notification_actions a
WHERE (a.notification_id, a.action_index) IN (
  SELECT e.notification_id, e.action_index
  FROM chopar.notification_actions e, kept
  WHERE e.pressed_at < kept.since
  ORDER BY e.pressed_at
  LIMIT $1::int)
RETURNING 1
