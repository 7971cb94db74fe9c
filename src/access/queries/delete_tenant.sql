DELETE FROM chopar.tenants WHERE key = $1 RETURNING key
