-- The sealed bot token of workspace $1, in base64 (no row: not installed).
SELECT translate(encode(token_sealed, 'base64'), E'\n', '') AS token_sealed
FROM chopar.slack_workspaces
WHERE team_id = $1
