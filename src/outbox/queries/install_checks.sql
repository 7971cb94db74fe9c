-- Whether role $1 exists, is a superuser (whom no privilege restricts), and
-- owns the outbox itself or through a role it belongs to.
SELECT r.rolsuper AS superuser,
       pg_has_role(r.oid, c.relowner, 'USAGE') AS owns_outbox
FROM pg_roles r
LEFT JOIN pg_class c ON c.oid = 'chopar.outbox'::regclass
WHERE r.rolname = $1
