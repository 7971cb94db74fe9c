SELECT 1 FROM chopar.users WHERE id = $1 AND NOT erasing
