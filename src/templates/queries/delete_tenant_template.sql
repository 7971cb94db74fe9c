-- DELETE /v1/templates/{type}?tenant=: returns the type when tenant $1 had
-- its own template of type $2 (the table's trigger tells the caches).
DELETE FROM chopar.tenant_templates WHERE tenant = $1 AND type = $2 RETURNING type
