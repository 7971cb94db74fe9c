-- How many partials tenant $1 (NULL: the global scope) holds besides $2:
-- PUT refuses a new one past the bound.
SELECT count(*) AS n FROM chopar.partials WHERE tenant IS NOT DISTINCT FROM $1::text AND key <> $2::text
