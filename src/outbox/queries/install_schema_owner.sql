-- The owner of an existing schema chopar, the role that installs
-- (current_user), and whether they are the same; no row when there is no
-- such schema.
SELECT pg_get_userbyid(n.nspowner) AS owner,
       current_user::text AS installer,
       n.nspowner = (SELECT oid FROM pg_roles WHERE rolname = current_user) AS installer_owns
FROM pg_namespace n
WHERE n.nspname = 'chopar'
