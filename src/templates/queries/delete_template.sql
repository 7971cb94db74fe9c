-- DELETE /v1/templates/{type}; returns the type when there was one, and
-- tells every process's cache (NOTIFY chopar_templates, sent at COMMIT).
WITH deleted AS (
  DELETE FROM chopar.templates WHERE type = $1 RETURNING type
)
SELECT type, pg_notify('chopar_templates', type) FROM deleted
