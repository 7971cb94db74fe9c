-- PUT /v1/layouts/{key}: create or replace layout $1 of tenant $2 (NULL:
-- the global one): $3 html, $4 text (NULL: the content as it is). No row
-- when the tenant does not exist. The table's trigger tells every
-- process's cache (NOTIFY chopar_layouts, sent at COMMIT).
INSERT INTO chopar.layouts AS l (key, tenant, html, text)
SELECT $1::text, $2::text, $3::text, $4::text
WHERE $2::text IS NULL OR EXISTS (SELECT 1 FROM chopar.tenants WHERE key = $2::text)
ON CONFLICT (tenant, key) DO UPDATE SET html = EXCLUDED.html, text = EXCLUDED.text, updated_at = now()
RETURNING l.key
