-- An erasure's batch (hub::UserEraser): up to $2 workflow runs of user $1
-- (early, so no step sends anything more meanwhile): workflow_runs_user.
DELETE FROM chopar.workflow_runs
WHERE notification_id IN (SELECT notification_id FROM chopar.workflow_runs WHERE user_id = $1 LIMIT $2)
