-- Tenants, API keys and the audit log (docs/tenants-and-access.md).

-- A tenant: one customer of the application that runs chopar. Users,
-- templates and notifications may carry one; what carries none is
-- everyone's, as before tenants existed.
CREATE TABLE chopar.tenants (
  key         text PRIMARY KEY CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- logo_url, primary_color, sender_name, footer (the API validates them).
  branding    jsonb NOT NULL DEFAULT '{}'
              CHECK (jsonb_typeof(branding) = 'object' AND length(branding::text) <= 8192),
  -- Default preferences of the tenant's users, in the shape of a user's.
  preferences jsonb NOT NULL DEFAULT '{}'
              CHECK (jsonb_typeof(preferences) = 'object' AND length(preferences::text) <= 16384),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (updated_at >= created_at)
);

-- An API key is known by the SHA-256 of its text: the key holds 256 random
-- bits, so the digest cannot be turned back into it, and a stolen copy of
-- this table signs nothing in. The text is shown once, when it is made.
CREATE TABLE chopar.api_keys (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- The key's first characters, so that a person can tell keys apart.
  prefix       text NOT NULL CHECK (prefix ~ '^chopar_[A-Za-z0-9_-]{4}$'),
  key_hash     bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  scopes       text[] NOT NULL CHECK (cardinality(scopes) BETWEEN 1 AND 4
                                      AND scopes <@ ARRAY['notify', 'read', 'manage', 'admin']),
  -- A key confined to a tenant goes with it.
  tenant       text REFERENCES chopar.tenants (key) ON DELETE CASCADE,
  expires_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Moved at most once a minute.
  last_used_at timestamptz,
  CHECK (expires_at IS NULL OR expires_at > created_at)
);

-- Who changed what: one row per row an API caller, a console account or
-- the command line created, changed or deleted, written by the triggers
-- below in the transaction of the change (a change rolled back leaves no
-- row). The actor is the session setting chopar.actor, a JSON object that
-- chopar sets at the start of each round trip of a request that changes
-- state (db::ActorScope); the background loops set none, so what they
-- change (a schedule's next fire time, a broadcast's cursor) is not here.
CREATE TABLE chopar.audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor       text NOT NULL CHECK (length(actor) BETWEEN 1 AND 100),
  actor_name  text CHECK (length(actor_name) <= 300),
  address     text CHECK (length(address) <= 100),
  request_id  text CHECK (length(request_id) <= 200),
  action      text NOT NULL CHECK (action IN ('create', 'update', 'delete')),
  resource    text NOT NULL CHECK (resource ~ '^[a-z_]{1,50}$'),
  resource_id text NOT NULL CHECK (length(resource_id) BETWEEN 1 AND 500),
  before      jsonb,
  after       jsonb,
  CHECK (before IS NOT NULL OR after IS NOT NULL)
);
-- GET /v1/audit pages backwards by id, filtered by resource or actor.
CREATE INDEX audit_log_resource ON chopar.audit_log (resource, id);
CREATE INDEX audit_log_actor ON chopar.audit_log (actor, id);
-- Retention deletes by age; rows are appended in time order.
CREATE INDEX audit_log_at ON chopar.audit_log USING brin (at);

-- Appends one audit row for the transaction's actor, and nothing without
-- one; also the event audit.recorded when [events] emit selects it.
CREATE FUNCTION chopar.audit_record(resource text, resource_id text, action text,
                                    before jsonb, after jsonb)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  actor jsonb := nullif(pg_catalog.current_setting('chopar.actor', true), '')::jsonb;
  entry chopar.audit_log;
BEGIN
  IF actor IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO chopar.audit_log (actor, actor_name, address, request_id, action, resource,
                                resource_id, before, after)
  VALUES (actor ->> 'actor', actor ->> 'name', actor ->> 'address', actor ->> 'request_id',
          audit_record.action, audit_record.resource, audit_record.resource_id,
          audit_record.before, audit_record.after)
  RETURNING * INTO entry;
  IF pg_catalog.strpos(COALESCE(pg_catalog.current_setting('chopar.events', true), ''),
                       ',audit.recorded,') > 0 THEN
    INSERT INTO chopar.outbox (type, payload)
    VALUES ('audit.recorded',
            jsonb_build_object('id', entry.id, 'at', chopar.api_time(entry.at),
                               'actor', entry.actor, 'actor_name', entry.actor_name,
                               'address', entry.address, 'request_id', entry.request_id,
                               'action', entry.action, 'resource', entry.resource,
                               'resource_id', entry.resource_id, 'before', entry.before,
                               'after', entry.after));
  END IF;
END
$$;

-- The row trigger of an audited table. Arguments: the resource's name, its
-- id's columns (comma-separated; joined with '/'), then the columns whose
-- values are secrets: they appear as "[secret]". A change that changes
-- nothing but updated_at is not recorded.
CREATE FUNCTION chopar.audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  before jsonb;
  after jsonb;
  id_text text;
  secret text;
BEGIN
  IF nullif(pg_catalog.current_setting('chopar.actor', true), '') IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    before := to_jsonb(OLD);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    after := to_jsonb(NEW);
  END IF;
  IF TG_OP = 'UPDATE' AND before - 'updated_at' = after - 'updated_at' THEN
    RETURN NULL;
  END IF;
  IF pg_catalog.strpos(TG_ARGV[1], ',') = 0 THEN
    id_text := COALESCE(after, before) ->> TG_ARGV[1];
  ELSE
    SELECT string_agg(COALESCE(after, before) ->> c, '/' ORDER BY ord)
      INTO id_text
      FROM unnest(string_to_array(TG_ARGV[1], ',')) WITH ORDINALITY AS ids(c, ord);
  END IF;
  FOR i IN 2 .. TG_NARGS - 1 LOOP
    secret := TG_ARGV[i];
    IF before ? secret AND before -> secret <> 'null' THEN
      before := jsonb_set(before, ARRAY[secret], '"[secret]"');
    END IF;
    IF after ? secret AND after -> secret <> 'null' THEN
      after := jsonb_set(after, ARRAY[secret], '"[secret]"');
    END IF;
  END LOOP;
  PERFORM chopar.audit_record(TG_ARGV[0], id_text,
                              CASE TG_OP WHEN 'INSERT' THEN 'create'
                                         WHEN 'UPDATE' THEN 'update' ELSE 'delete' END,
                              before, after);
  RETURN NULL;
END
$$;

CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.tenants
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('tenant', 'key');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.api_keys
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('api_key', 'id', 'key_hash');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.users
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('user', 'id');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.telegram_connections
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('telegram_connection', 'user_id');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.push_subscriptions
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('push_subscription', 'id', 'p256dh', 'auth');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.devices
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('device', 'id', 'token');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.templates
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('template', 'type');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.topics
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('topic', 'key');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.topic_subscribers
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('topic_subscriber', 'topic,user_id');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.schedules
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('schedule', 'key');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.suppressions
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('suppression', 'id');
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.slack_workspaces
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('slack_workspace', 'team_id', 'token_sealed');
-- WHEN keeps the triggers free for the changes no caller makes (the
-- scheduler moving next_fire_at): the function is not even called.
-- A broadcast is audited when a caller changes it (a cancel); the fan-out
-- loop that moves its cursor has no actor.
CREATE TRIGGER audit AFTER UPDATE OR DELETE ON chopar.broadcasts
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('broadcast', 'id');
