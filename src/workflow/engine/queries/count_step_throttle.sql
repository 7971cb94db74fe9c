-- The runs of user $1's notifications of type $2 that passed a throttle
-- step after $3 (the window's start): workflow_runs_throttle.
SELECT count(*) AS passed FROM chopar.workflow_runs
WHERE user_id = $1::bigint AND type = $2::text AND throttle_passed_at > $3::timestamptz
