-- One template by type, as the API shows it (the cache parses it too).
SELECT doc::text AS doc FROM chopar.templates_api WHERE type = $1
