-- A page of user ids in ascending order after the keyset cursor $1.
SELECT id FROM chopar.users WHERE id > $1 AND NOT erasing ORDER BY id LIMIT $2
