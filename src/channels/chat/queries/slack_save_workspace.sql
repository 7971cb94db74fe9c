-- GET /v1/slack/oauth/callback: workspace $1 (named $2, its bot user $3)
-- installed chopar's app, or installed it again; $4 is its bot token,
-- sealed, in base64. Answers whether the workspace is new.
INSERT INTO chopar.slack_workspaces AS w (team_id, team_name, bot_user_id, token_sealed)
VALUES ($1, $2, $3, decode($4, 'base64'))
ON CONFLICT (team_id) DO UPDATE
  SET team_name = EXCLUDED.team_name, bot_user_id = EXCLUDED.bot_user_id,
      token_sealed = EXCLUDED.token_sealed, updated_at = now()
RETURNING (xmax = 0) AS created, chopar.api_time(installed_at) AS installed_at,
          chopar.api_time(updated_at) AS updated_at
