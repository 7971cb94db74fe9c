-- DELETE /v1/partials/{key}: partial $1 of tenant $2 (NULL: the global
-- one); a row when there was one. A text that still includes it renders
-- it as nothing. The table's trigger tells the caches.
DELETE FROM chopar.partials WHERE key = $1::text AND tenant IS NOT DISTINCT FROM $2::text
RETURNING key
