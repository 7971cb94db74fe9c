-- The erasures of the users $1 (bigint[]), in id order. With $2 (a confined
-- key's tenant) only those still pending whose user belongs to it: once
-- complete, nothing is left to tell which tenants the user was in.
SELECT e.user_id, e.requested_at, e.completed_at
FROM chopar.user_erasures e
WHERE e.user_id = ANY ($1::bigint[])
  AND ($2::text IS NULL
       OR (e.completed_at IS NULL
           AND EXISTS (SELECT 1 FROM chopar.user_tenants m
                       WHERE m.user_id = e.user_id AND m.tenant = $2::text)))
ORDER BY e.user_id
