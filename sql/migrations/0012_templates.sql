-- Templates per notification type, and what a notification was rendered
-- with (docs/api.md "Templates and localization").

-- A type's template as its API JSON shows it. The texts are parsed and
-- validated by the API before they are stored; each process keeps them
-- compiled in a cache, refreshed by NOTIFY chopar_templates (payload: the
-- type) whenever a row changes.
CREATE TABLE chopar.templates (
  type           text PRIMARY KEY CHECK (type ~ '^[a-z]+(\.[a-z_]+)*$' AND length(type) <= 100),
  category       text CHECK (category IS NULL OR (category ~ '^[a-z]+(\.[a-z_]+)*$' AND length(category) <= 100)),
  default_locale text NOT NULL CHECK (default_locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$'),
  locales        jsonb NOT NULL CHECK (jsonb_typeof(locales) = 'object' AND locales ? default_locale),
  -- Workflow settings, kept as given.
  digest         jsonb CHECK (digest IS NULL OR jsonb_typeof(digest) = 'object'),
  throttle       jsonb CHECK (throttle IS NULL OR jsonb_typeof(throttle) = 'object'),
  escalate       jsonb CHECK (escalate IS NULL OR jsonb_typeof(escalate) = 'object'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- The category preferences apply to (the template's, else the request's),
-- and each channel's own texts as its template rendered them for the user:
-- {"email": {"subject", "html", "text"}, "telegram": {"text"}, "push":
-- {"title", "body"}, "sms": {"text"}}, only what the template has; a
-- channel whose rendering failed holds {"error": "…"} and its delivery was
-- created failed with that reason. NULL without a template. Kept on the
-- notification, written once, not on the delivery rows that change status
-- several times.
ALTER TABLE chopar.notifications
  ADD COLUMN category text CHECK (category IS NULL OR length(category) <= 100),
  ADD COLUMN content jsonb CHECK (content IS NULL OR jsonb_typeof(content) = 'object');

-- A template as the API shows it.
CREATE VIEW chopar.templates_api AS
SELECT t.type,
       json_build_object('type', t.type, 'category', t.category, 'default_locale', t.default_locale,
                         'locales', t.locales, 'digest', t.digest, 'throttle', t.throttle,
                         'escalate', t.escalate, 'created_at', chopar.api_time(t.created_at),
                         'updated_at', chopar.api_time(t.updated_at)) AS doc
FROM chopar.templates t;
