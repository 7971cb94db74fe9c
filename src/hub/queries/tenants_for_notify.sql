-- Only for a batch that names tenants (one without never sends it): the
-- tenants $2 with their default preferences and branding, and which of
-- the users $1 belong to each (ids, comma-separated).
SELECT t.key, t.preferences::text AS preferences, t.branding::text AS branding,
       (SELECT string_agg(m.user_id::text, ',') FROM chopar.user_tenants m
        WHERE m.tenant = t.key AND m.user_id = ANY ($1::bigint[])) AS members
FROM chopar.tenants t
WHERE t.key = ANY ($2::text[])
