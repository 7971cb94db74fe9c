-- Creates topic $1 named $2, or renames it. $3: whether its tenant is set
-- to $4 (NULL: none; a tenant that does not exist: no row); otherwise a new
-- topic has none and an existing one keeps its own. $5, a key confined to
-- tenant $5: an existing topic of another tenant or of none is not changed
-- (no row). Returns the topic.
INSERT INTO chopar.topics AS t (key, name, tenant)
SELECT $1, $2, CASE WHEN $3::boolean THEN $4::text END
WHERE NOT $3::boolean OR $4::text IS NULL
   OR EXISTS (SELECT 1 FROM chopar.tenants WHERE key = $4::text)
ON CONFLICT (key) DO UPDATE
  SET name = excluded.name,
      tenant = CASE WHEN $3::boolean THEN excluded.tenant ELSE t.tenant END,
      updated_at = now()
  WHERE $5::text IS NULL OR t.tenant = $5::text
RETURNING t.key, t.name, t.tenant, t.created_at::text AS created_at, t.updated_at::text AS updated_at
