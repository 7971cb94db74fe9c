-- Every layout, global and of every tenant: what a process's cache loads
-- (on start and after each reconnection of its LISTEN).
SELECT key, tenant, html, text, created_at::text AS created_at, updated_at::text AS updated_at
FROM chopar.layouts
