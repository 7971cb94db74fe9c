-- The email of user $1 for POST /v1/users/{id}/slack/connect (no row: no
-- such user; a null email: the user has none).
SELECT email FROM chopar.users WHERE id = $1 AND NOT erasing
