-- `chopar outbox install --app-role`: the application may write events
-- (chopar.emit or a plain INSERT) and inbox rows, nothing else: it can
-- neither read others' events nor mark them dispatched. {role} is replaced
-- by the quoted role name (identifiers cannot be parameters).
GRANT USAGE ON SCHEMA chopar TO {role};
REVOKE ALL ON TABLE chopar.outbox, chopar.inbox FROM {role};
GRANT INSERT ON TABLE chopar.outbox, chopar.inbox TO {role};
GRANT EXECUTE ON FUNCTION chopar.emit(text, bigint, jsonb) TO {role};
