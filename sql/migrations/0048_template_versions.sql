-- Versions and drafts of templates, layouts and partials (docs/api.md
-- "Versions and drafts").
--
-- - template_versions: every PUT of a template, layout or partial (and
--   every restore and publish, which are PUTs of an older or drafted
--   document) appends version n+1 of its (kind, key, tenant), in the
--   transaction of the change. `document` is the PUT body as given, so a
--   restore parses it again under the rules of the day. Versions outlive
--   a DELETE (a later PUT continues the numbering, and a restore brings a
--   deleted one back); a tenant's go with the tenant. The newest version
--   of a document that exists is the live one.
-- - template_drafts: at most one draft per (kind, key, tenant), never sent;
--   preview renders it, publish makes it the next version.
--
-- tenant NULL: the global document; the unique indexes treat NULL as one
-- tenant (coalesce to '', which no tenant key is).
CREATE TABLE chopar.template_versions (
  kind       text NOT NULL CHECK (kind IN ('template', 'layout', 'partial')),
  key        text NOT NULL CHECK (length(key) BETWEEN 1 AND 100),
  tenant     text REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  version    integer NOT NULL CHECK (version >= 1),
  document   jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The audit log's actor of the change ("key:<id>", "account:<id>",
  -- "api_key", "cli"); NULL when none was set.
  created_by text CHECK (length(created_by) BETWEEN 1 AND 100)
);
-- One row per version; the list pages backwards by version.
CREATE UNIQUE INDEX template_versions_key
  ON chopar.template_versions (kind, key, (coalesce(tenant, '')), version);
-- A tenant's deletion finds its rows.
CREATE INDEX template_versions_tenant ON chopar.template_versions (tenant) WHERE tenant IS NOT NULL;

CREATE TABLE chopar.template_drafts (
  kind       text NOT NULL CHECK (kind IN ('template', 'layout', 'partial')),
  key        text NOT NULL CHECK (length(key) BETWEEN 1 AND 100),
  tenant     text REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  document   jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text CHECK (length(updated_by) BETWEEN 1 AND 100)
);
CREATE UNIQUE INDEX template_drafts_key
  ON chopar.template_drafts (kind, key, (coalesce(tenant, '')));
CREATE INDEX template_drafts_tenant ON chopar.template_drafts (tenant) WHERE tenant IS NOT NULL;

-- Every template stored before versions existed becomes its version 1:
-- its PUT body rebuilt from its columns (templates are a few hundred rows).
INSERT INTO chopar.template_versions (kind, key, tenant, version, document, created_at)
SELECT 'template', type, tenant, 1,
       jsonb_build_object('category', category, 'default_locale', default_locale,
                          'locales', locales, 'tags', coalesce(to_jsonb(tags), '[]'::jsonb),
                          'digest', digest, 'throttle', throttle, 'escalate', escalate),
       updated_at
FROM (SELECT NULL::text AS tenant, type, category, default_locale, locales, tags, digest,
             throttle, escalate, updated_at
      FROM chopar.templates
      UNION ALL
      SELECT tenant, type, category, default_locale, locales, tags, digest, throttle, escalate,
             updated_at
      FROM chopar.tenant_templates) AS stored;
