-- DELETE /v1/slack/workspaces/{team_id}: forgets workspace $1's token. The
-- users' addresses in it stay (an install again makes them work again).
DELETE FROM chopar.slack_workspaces WHERE team_id = $1
