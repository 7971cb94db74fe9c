-- A user's time zone, the row locked; `erasing`: the user is being erased
-- (not found, or for PUT a conflict).
SELECT timezone, erasing FROM chopar.users WHERE id = $1 FOR UPDATE
