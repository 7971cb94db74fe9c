-- Every template by type, as the API shows it (GET /v1/templates, and what
-- a cache loads).
SELECT doc::text AS doc FROM chopar.templates_api ORDER BY type
