-- What a batch of imported lines ($1 the users' ids) merges into, for the
-- bounds PUT checks: each user's stored preferences (NULL: no such user)
-- and the bytes of its data once the line's "data" $2 is merged into it
-- ($3: cleared first), as the CHECK of chopar.users.data counts them.
SELECT x.ord - 1 AS line_index, u.preferences::text AS preferences,
       octet_length(chopar.merged_object(
         CASE WHEN x.clear THEN '{}'::jsonb ELSE coalesce(u.data, '{}') END, x.patch::jsonb)::text)
         AS data_bytes
FROM unnest($1::bigint[], $2::text[], $3::boolean[]) WITH ORDINALITY AS x(id, patch, clear, ord)
LEFT JOIN chopar.users u ON u.id = x.id
ORDER BY x.ord
