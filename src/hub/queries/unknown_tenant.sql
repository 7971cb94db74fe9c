-- The first (0-based) position in $1 of a key no tenant has, if any: what
-- a list of tenant keys is refused for (invalid_field "tenants[i]").
SELECT g.ord - 1 AS position
FROM unnest($1::text[]) WITH ORDINALITY AS g(key, ord)
WHERE NOT EXISTS (SELECT 1 FROM chopar.tenants t WHERE t.key = g.key)
ORDER BY g.ord
LIMIT 1
