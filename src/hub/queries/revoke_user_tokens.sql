UPDATE chopar.users SET token_generation = token_generation + 1, updated_at = now()
WHERE id = $1
RETURNING token_generation
