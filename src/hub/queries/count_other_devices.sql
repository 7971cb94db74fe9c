-- The user's devices other than this token: how many a new one would join.
SELECT count(*) FROM chopar.devices WHERE user_id = $1 AND token <> $2
