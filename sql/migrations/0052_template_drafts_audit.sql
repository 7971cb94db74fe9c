-- Drafts of templates, layouts and partials (docs/api.md "Versions and
-- drafts") in the audit log, as their PUTs, restores and publishes are
-- through the live tables: a PUT or DELETE of a draft, and the draft a
-- publish takes, is one row, resource "draft", resource_id
-- "<kind>/<key>" or "<kind>/<tenant>/<key>" (audit_change joins the
-- columns with "/" and leaves out a NULL tenant).
DROP TRIGGER IF EXISTS audit ON chopar.template_drafts;
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.template_drafts
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '')
  EXECUTE FUNCTION chopar.audit_change('draft', 'kind,tenant,key');
