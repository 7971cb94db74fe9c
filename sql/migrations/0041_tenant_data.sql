-- Tenants in the data path (docs/tenants-and-access.md): which tenants a
-- user belongs to, the tenant a notification is in, a tenant's own
-- templates and topics. Everything without a tenant is everyone's, as
-- before.

-- A user may belong to several tenants; a key confined to a tenant sees
-- only its members. Either side deleted takes the membership with it.
CREATE TABLE chopar.user_tenants (
  user_id    bigint NOT NULL REFERENCES chopar.users (id) ON DELETE CASCADE,
  tenant     text NOT NULL REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, tenant)
);
-- A tenant's deletion finds its members.
CREATE INDEX user_tenants_tenant ON chopar.user_tenants (tenant, user_id);
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.user_tenants
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('user_tenant', 'user_id,tenant');

-- The tenant a notification is in (NULL: none). Nullable without a default
-- and without a CHECK: metadata only on the partitioned history, no
-- partition scanned. No foreign key either: a tenant deleted leaves its
-- history as it was. The API validates the key.
ALTER TABLE chopar.notifications ADD COLUMN tenant text;

-- A tenant's own template of a type: for notifications in that tenant it
-- replaces the global one (chopar.templates) of the same type. The same
-- columns and rules as a global template.
CREATE TABLE chopar.tenant_templates (
  tenant         text NOT NULL REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  type           text NOT NULL CHECK (type ~ '^[a-z]+(\.[a-z_]+)*$' AND length(type) <= 100),
  category       text CHECK (category IS NULL OR (category ~ '^[a-z]+(\.[a-z_]+)*$' AND length(category) <= 100)),
  default_locale text NOT NULL CHECK (default_locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$'),
  locales        jsonb NOT NULL CHECK (jsonb_typeof(locales) = 'object' AND locales ? default_locale),
  digest         jsonb CHECK (digest IS NULL OR jsonb_typeof(digest) = 'object'),
  throttle       jsonb CHECK (throttle IS NULL OR jsonb_typeof(throttle) = 'object'),
  escalate       jsonb CHECK (escalate IS NULL OR jsonb_typeof(escalate) = 'object'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, type)
);
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.tenant_templates
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('tenant_template', 'tenant,type');

-- Every change of a tenant's template, its tenant's deletion included (the
-- cascade), tells every process's cache: NOTIFY chopar_templates with the
-- payload '<tenant>/<type>' (neither a key nor a type holds a '/'), sent
-- at COMMIT.
CREATE FUNCTION chopar.tenant_template_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('chopar_templates', COALESCE(NEW.tenant, OLD.tenant) || '/' || COALESCE(NEW.type, OLD.type));
  RETURN NULL;
END
$$;
CREATE TRIGGER notify_cache AFTER INSERT OR UPDATE OR DELETE ON chopar.tenant_templates
  FOR EACH ROW EXECUTE FUNCTION chopar.tenant_template_changed();

-- A topic may belong to a tenant: its broadcasts are that tenant's
-- notifications, and a key confined to another tenant does not see it.
-- The table is small (topic names); the foreign key checks NULLs only.
ALTER TABLE chopar.topics ADD COLUMN tenant text REFERENCES chopar.tenants (key) ON DELETE CASCADE;
