-- Email layouts and Mustache partials (docs/api.md "Layouts" and
-- "Partials"), each global (tenant NULL) or a tenant's own, which replaces
-- the global one of the same key for that tenant's notifications. Every
-- process caches them all (templates::FragmentStore), told of each change
-- by the NOTIFY of the tables' triggers.

-- A layout: the HTML around an email's content ({{{content}}}, which it
-- must hold) and, optionally, its text alternative (NULL: the content as
-- it is). Sizes as an email.html template's.
CREATE TABLE chopar.layouts (
  key        text NOT NULL CHECK (key ~ '^[a-z0-9][a-z0-9_.-]{0,99}$'),
  tenant     text REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  html       text NOT NULL CHECK (length(html) <= 100000 AND strpos(html, '{{{content}}}') > 0),
  text       text CHECK (text IS NULL OR length(text) <= 100000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT layouts_key UNIQUE NULLS NOT DISTINCT (tenant, key)
);
-- A tenant's deletion finds its rows.
CREATE INDEX layouts_tenant ON chopar.layouts (tenant) WHERE tenant IS NOT NULL;

-- A partial: a Mustache text {{> key}} includes in a template's texts, a
-- layout or another partial.
CREATE TABLE chopar.partials (
  key        text NOT NULL CHECK (key ~ '^[a-z0-9][a-z0-9_.-]{0,99}$'),
  tenant     text REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  text       text NOT NULL CHECK (length(text) <= 50000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT partials_key UNIQUE NULLS NOT DISTINCT (tenant, key)
);
CREATE INDEX partials_tenant ON chopar.partials (tenant) WHERE tenant IS NOT NULL;

CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.layouts
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('layout', 'tenant,key');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.partials
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('partial', 'tenant,key');

-- Every change, a tenant's deletion included (the cascade), tells every
-- process's cache: NOTIFY chopar_layouts / chopar_partials (the trigger's
-- argument) with the payload '<key>' or '<tenant>/<key>' (neither holds a
-- '/'), sent at COMMIT.
CREATE FUNCTION chopar.fragment_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenant text := CASE TG_OP WHEN 'DELETE' THEN OLD.tenant ELSE NEW.tenant END;
  key text := CASE TG_OP WHEN 'DELETE' THEN OLD.key ELSE NEW.key END;
BEGIN
  PERFORM pg_notify(TG_ARGV[0], CASE WHEN tenant IS NULL THEN key ELSE tenant || '/' || key END);
  RETURN NULL;
END
$$;
CREATE TRIGGER notify_cache AFTER INSERT OR UPDATE OR DELETE ON chopar.layouts
  FOR EACH ROW EXECUTE FUNCTION chopar.fragment_changed('chopar_layouts');
CREATE TRIGGER notify_cache AFTER INSERT OR UPDATE OR DELETE ON chopar.partials
  FOR EACH ROW EXECUTE FUNCTION chopar.fragment_changed('chopar_partials');

-- A template's email layout: NULL, the built-in one; else a layout's key
-- (the tenant's own first, then the global one), checked by the API when
-- the template is stored; a layout in use cannot be deleted.
ALTER TABLE chopar.templates
  ADD COLUMN layout text CONSTRAINT templates_layout_check
    CHECK (layout IS NULL OR layout ~ '^[a-z0-9][a-z0-9_.-]{0,99}$');
ALTER TABLE chopar.tenant_templates
  ADD COLUMN layout text CONSTRAINT tenant_templates_layout_check
    CHECK (layout IS NULL OR layout ~ '^[a-z0-9][a-z0-9_.-]{0,99}$');
-- DELETE of a layout looks for the templates naming it.
CREATE INDEX templates_layout ON chopar.templates (layout) WHERE layout IS NOT NULL;
CREATE INDEX tenant_templates_layout ON chopar.tenant_templates (layout) WHERE layout IS NOT NULL;
