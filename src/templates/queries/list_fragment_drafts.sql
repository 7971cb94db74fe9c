-- A preview with drafts (docs/api.md "Previewing a template"): the drafts of
-- kind $1 ('layout' or 'partial') that a template of tenant $2 (NULL: a
-- global one) sees, the global ones and the tenant's own; at most 1000 of
-- each (the drafts' bound).
SELECT key, tenant, document::text AS document
FROM chopar.template_drafts
WHERE kind = $1::text AND (tenant IS NULL OR tenant = $2::text)
