-- The stored preferences of the users $1 (NULL: no such user), in the order
-- of $1: what the "preferences" of a batch of imported lines merge into,
-- for the bounds PUT checks.
SELECT u.preferences::text AS preferences
FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, ord)
LEFT JOIN chopar.users u ON u.id = x.id
ORDER BY x.ord
