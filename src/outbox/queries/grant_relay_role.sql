-- `chopar outbox install --relay-role`: the relay claims, marks and deletes
-- events; it writes none. {role} is replaced by the quoted role name.
GRANT USAGE ON SCHEMA chopar TO {role};
REVOKE ALL ON TABLE chopar.outbox FROM {role};
GRANT SELECT, UPDATE, DELETE ON TABLE chopar.outbox TO {role};
