-- Whether user $1 belongs to tenant $2.
SELECT 1 FROM chopar.user_tenants WHERE user_id = $1 AND tenant = $2
