-- Slack workspaces that installed chopar's app (docs/api.md "Slack"): the
-- bot token of each, sealed with [channels.slack] token_key (AES-256-GCM,
-- src/core/sealed_box.hpp; the row's team id is authenticated with it, so
-- a sealed token copied to another row does not open). The `slack`
-- channel's workspace addresses ("T…/U…") post with the token of their
-- team; GET /v1/slack/oauth/callback writes a row, DELETE
-- /v1/slack/workspaces/{team_id} removes it. The token itself never leaves
-- the process that opened it.
CREATE TABLE chopar.slack_workspaces (
  team_id      text PRIMARY KEY CHECK (team_id ~ '^[TE][A-Z0-9]{8,23}$'),
  team_name    text NOT NULL DEFAULT '' CHECK (length(team_name) <= 255),
  bot_user_id  text NOT NULL DEFAULT '' CHECK (bot_user_id ~ '^([UWB][A-Z0-9]{8,23})?$'),
  -- version byte, 12-byte nonce, the token, 16-byte tag
  token_sealed bytea NOT NULL CHECK (octet_length(token_sealed) BETWEEN 30 AND 1053),
  installed_at timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
