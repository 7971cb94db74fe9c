-- PUT /v1/partials/{key}: create or replace partial $1 of tenant $2 (NULL:
-- the global one): $3 text. No row when the tenant does not exist. The
-- table's trigger tells every process's cache (NOTIFY chopar_partials,
-- sent at COMMIT).
INSERT INTO chopar.partials AS p (key, tenant, text)
SELECT $1::text, $2::text, $3::text
WHERE $2::text IS NULL OR EXISTS (SELECT 1 FROM chopar.tenants WHERE key = $2::text)
ON CONFLICT (tenant, key) DO UPDATE SET text = EXCLUDED.text, updated_at = now()
RETURNING p.key
