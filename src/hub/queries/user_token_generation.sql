SELECT token_generation FROM chopar.users WHERE id = $1 AND NOT erasing
