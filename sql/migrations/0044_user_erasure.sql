-- migrate: no transaction
-- Erasing a user (docs/api.md "Erasing a user", docs/privacy.md):
-- DELETE /v1/users/{id} records the erasure and marks the user at once; the
-- erasure loop (src/hub/user_eraser.cpp) then deletes everything about the
-- user in bounded batches, the users row last, and stamps completed_at.
--
-- The record keeps the id and the times only, nothing else about the user:
-- it is what tells a late event for that id from an unknown user, and what
-- GET /v1/users/{id}/erasure answers. A new user of the same id (an
-- explicit PUT after completion) leaves it as it is.
CREATE TABLE IF NOT EXISTS chopar.user_erasures (
  user_id      bigint PRIMARY KEY CHECK (user_id > 0),
  requested_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz CHECK (completed_at IS NULL OR completed_at >= requested_at)
);
-- The loop's lookup: the oldest pending erasure.
CREATE INDEX IF NOT EXISTS user_erasures_pending ON chopar.user_erasures (requested_at)
  WHERE completed_at IS NULL;
-- Who asked for an erasure is in the audit log (the row holds only the id
-- and the times).
DROP TRIGGER IF EXISTS audit ON chopar.user_erasures;
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.user_erasures
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '') EXECUTE FUNCTION chopar.audit_change('user_erasure', 'user_id');

-- A user being erased is invisible at once: every query that reads users
-- for the API, notify, tokens and the fan-out leaves out the marked rows
-- (a column of the row those queries read anyway, so no query more).
-- A constant default: adding it rewrites nothing.
ALTER TABLE chopar.users ADD COLUMN IF NOT EXISTS erasing boolean NOT NULL DEFAULT false;

-- The erasure's batches find a user's rows by index in the tables that
-- had none by user.
CALL chopar.create_index_by_partition('chopar.sink_messages', 'sink_messages_user', 'user',
                                      '(user_id) WHERE user_id IS NOT NULL');
DROP INDEX CONCURRENTLY IF EXISTS chopar.digests_user;
CREATE INDEX CONCURRENTLY digests_user ON chopar.digests (user_id);
DROP INDEX CONCURRENTLY IF EXISTS chopar.outbox_user;
CREATE INDEX CONCURRENTLY outbox_user ON chopar.outbox (user_id) WHERE user_id IS NOT NULL;

-- Whom an audit row's values are about: 'user:<id>' for the user itself
-- or a row of the user's (its user_id), 'address:<address>' for a
-- suppression of an address; NULL once the values are erased
-- ('"[erased]"'), and for the erasure's own rows (only an id and times).
CREATE OR REPLACE FUNCTION chopar.audit_subject(resource text, resource_id text,
                                                before jsonb, after jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN coalesce(after, before) = '"[erased]"'::jsonb THEN NULL
              WHEN resource = 'user_erasure' THEN NULL
              WHEN resource = 'user' THEN 'user:' || resource_id
              WHEN jsonb_typeof(coalesce(after, before)) <> 'object' THEN NULL
              WHEN resource = 'suppression' THEN 'address:' || (coalesce(after, before) ->> 'address')
              ELSE 'user:' || (coalesce(after, before) ->> 'user_id') END
$$;
DROP INDEX CONCURRENTLY IF EXISTS chopar.audit_log_subject;
CREATE INDEX CONCURRENTLY audit_log_subject
  ON chopar.audit_log (chopar.audit_subject(resource, resource_id, before, after))
  WHERE chopar.audit_subject(resource, resource_id, before, after) IS NOT NULL;
-- The audit rows relayed as chopar's own events (audit.recorded) carry the
-- same values: the erasure deletes those about the user, found alike (a
-- JSON null in the payload is a NULL of the table).
DROP INDEX CONCURRENTLY IF EXISTS chopar.outbox_audit_subject;
CREATE INDEX CONCURRENTLY outbox_audit_subject
  ON chopar.outbox (chopar.audit_subject(payload ->> 'resource', payload ->> 'resource_id',
                                         nullif(payload -> 'before', 'null'), nullif(payload -> 'after', 'null')))
  WHERE type = 'audit.recorded';
