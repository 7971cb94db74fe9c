-- GET /v1/slack/workspaces: every installed workspace, without its token.
SELECT team_id, team_name, bot_user_id, chopar.api_time(installed_at) AS installed_at,
       chopar.api_time(updated_at) AS updated_at
FROM chopar.slack_workspaces
ORDER BY team_id
LIMIT 1000
