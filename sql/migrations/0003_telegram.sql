-- The Telegram connect flow (API.md, users and addresses): one-time deep-link
-- tokens and the long-polling offset.

-- A token of https://t.me/<bot>?start=<token>. Used once: the /start that
-- consumes it records the chat, so a replay of that same update is recognised
-- and does nothing.
CREATE TABLE chopar.telegram_link_tokens (
  -- Telegram allows A-Z a-z 0-9 _ - (at most 64) in a start payload; ours are
  -- 24 random bytes in base64url.
  token        text PRIMARY KEY CHECK (token ~ '^[A-Za-z0-9_-]{32}$'),
  user_id      bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz,
  used_chat_id bigint,
  CHECK (expires_at > created_at),
  CHECK ((used_at IS NULL) = (used_chat_id IS NULL)),
  CHECK (used_at IS NULL OR used_at >= created_at)
);
CREATE INDEX telegram_link_tokens_user ON chopar.telegram_link_tokens (user_id);

-- getUpdates offset per bot (the numeric id before ':' in the bot token):
-- advanced in the same transaction as the effects of the updates it confirms,
-- so a restart neither loses nor replays an update.
CREATE TABLE chopar.telegram_poll_state (
  bot           text PRIMARY KEY CHECK (bot ~ '^[0-9]{1,20}$'),
  update_offset bigint NOT NULL CHECK (update_offset >= 0),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
