-- The first press of action $3 (event $4) of user $2's notification $1:
-- the record (its primary key keeps it once), the action's "pressed_at"
-- in the notification's actions, and the notification read and seen as
-- of the press if it was not. Returns the press's time; no row when it
-- was recorded before (then nothing is written).
WITH pressed AS (
  INSERT INTO chopar.notification_actions (notification_id, action_index, user_id, event)
  VALUES ($1, $3, $2, $4)
  ON CONFLICT (notification_id, action_index) DO NOTHING
  RETURNING pressed_at
), marked AS (
  UPDATE chopar.notifications n
  SET actions = jsonb_set(n.actions, ARRAY[$3::text, 'pressed_at'],
                          to_jsonb(chopar.api_time(p.pressed_at))),
      seen_at = coalesce(n.seen_at, p.pressed_at),
      read_at = coalesce(n.read_at, p.pressed_at)
  FROM pressed p
  WHERE n.id = $1 AND n.user_id = $2
  RETURNING n.id
)
SELECT p.pressed_at::text AS pressed_at, (SELECT count(*) FROM marked) AS marked
FROM pressed p
