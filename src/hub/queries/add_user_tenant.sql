-- A key confined to tenant $2 creates or changes user $1: the user belongs
-- to that tenant afterwards (other memberships are not that key's).
INSERT INTO chopar.user_tenants (user_id, tenant) VALUES ($1, $2)
ON CONFLICT (user_id, tenant) DO NOTHING
