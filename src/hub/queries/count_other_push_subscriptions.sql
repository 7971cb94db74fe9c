-- The user's subscriptions other than this endpoint: how many a new one
-- would join.
SELECT count(*) FROM chopar.push_subscriptions WHERE user_id = $1 AND endpoint <> $2
