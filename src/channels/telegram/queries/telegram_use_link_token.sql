-- Marks token $1 used at $2 by chat $3 and binds that chat to the token's
-- user (active again if it was not). Nothing when the token is already used.
WITH used AS (
  UPDATE chopar.telegram_link_tokens
  SET used_at = $2::timestamptz, used_chat_id = $3
  WHERE token = $1 AND used_at IS NULL
  RETURNING user_id
)
INSERT INTO chopar.telegram_connections AS c (user_id, chat_id, active)
SELECT user_id, $3, true FROM used
ON CONFLICT (user_id) DO UPDATE SET chat_id = EXCLUDED.chat_id, active = true, updated_at = now()
RETURNING c.user_id
