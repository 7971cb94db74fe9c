DELETE FROM chopar.api_keys WHERE id = $1 RETURNING id
