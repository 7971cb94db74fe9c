-- The transactional outbox, its relay's bookkeeping, and the consumer-side
-- inbox (docs/outbox.md).
--
-- This file is also what `chopar outbox install` runs in an application's
-- own database (before granting its roles), so every statement is
-- idempotent and everything lives in schema chopar. A later migration that
-- changes these objects must be added to the install list too
-- (src/outbox/install.cpp).

CREATE SCHEMA IF NOT EXISTS chopar;

-- Every dispatch rewrites its row, and PostgreSQL then adds an entry to
-- every index (the pending index's predicate changes, so the update is never
-- HOT): the table keeps one b-tree that all rows are in, the event id's.
CREATE TABLE IF NOT EXISTS chopar.outbox (
  -- The order relays claim in (through outbox_pending); unique by
  -- construction, so it needs no index of its own.
  id              bigint GENERATED ALWAYS AS IDENTITY,
  -- What consumers deduplicate on: webhook-id, Nats-Msg-Id, the inbox key.
  event_id        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Dot-separated tokens, so that a type is also a valid NATS subject tail.
  type            text NOT NULL CHECK (type ~ '^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$'
                                       AND length(type) <= 200),
  user_id         bigint,
  payload         jsonb NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now(),
  dispatched_at   timestamptz,
  -- Publish attempts: failed ones, plus the successful one once dispatched.
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- A failed event is not claimed again before this (the relay's backoff).
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error      text,
  -- Targets that have the event already, when another target failed: a
  -- retry goes only to the rest.
  delivered_to    text[] NOT NULL DEFAULT '{}'
);

-- What relays claim and mark, in id order: only undispatched rows, however
-- large the history.
CREATE INDEX IF NOT EXISTS outbox_pending ON chopar.outbox (id) WHERE dispatched_at IS NULL;
-- Where retention looks for old events: rows are appended in creation
-- order, so a block-range index finds the old ones without a scan, at
-- almost no cost per write.
CREATE INDEX IF NOT EXISTS outbox_created ON chopar.outbox USING brin (created_at);

-- Consumers write an event's id here in the same transaction as its effect;
-- the primary key turns a repeated delivery into no effect.
CREATE TABLE IF NOT EXISTS chopar.inbox (
  event_id     uuid PRIMARY KEY,
  processed_at timestamptz NOT NULL DEFAULT now()
);

-- Writes one event in the caller's transaction and returns its id. The id is
-- drawn here rather than read back (INSERT … RETURNING would need SELECT on
-- the table, which the application's role must not have).
CREATE OR REPLACE FUNCTION chopar.emit(type text, user_id bigint, payload jsonb)
  RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  event uuid := pg_catalog.gen_random_uuid();
BEGIN
  INSERT INTO chopar.outbox (event_id, type, user_id, payload)
  VALUES (event, emit.type, emit.user_id, COALESCE(emit.payload, '{}'));
  RETURN event;
END
$$;
-- Only roles granted it may call it (see `chopar outbox install --app-role`).
REVOKE ALL ON FUNCTION chopar.emit(text, bigint, jsonb) FROM PUBLIC;

-- Wakes the relays (LISTEN chopar_outbox, see src/db/notify_channels.hpp)
-- once per inserting statement, whether it came through emit() or not.
-- PostgreSQL folds the notifications of one transaction into one.
CREATE OR REPLACE FUNCTION chopar.outbox_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_catalog.pg_notify('chopar_outbox', '');
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER outbox_wake AFTER INSERT ON chopar.outbox
  FOR EACH STATEMENT EXECUTE FUNCTION chopar.outbox_wake();

-- chopar's own events (docs/outbox.md, "chopar's own events"): a change to a
-- notification or a delivery writes its event into chopar.outbox from a
-- trigger, so it commits or rolls back with the change, whichever statement
-- made it. Which events a session writes is its setting `chopar.events`
-- (",delivery.sent,delivery.failed," …), which chopar puts in the startup
-- options of its connections from [events] emit; unset or empty, the
-- triggers' WHEN conditions are false and no function runs at all. Only in
-- chopar's own database: an application's (`chopar outbox install`) has no
-- notifications.
DO $own_events$
BEGIN
  IF pg_catalog.to_regclass('chopar.deliveries') IS NULL THEN
    RETURN;
  END IF;

  -- The payload is the delivery as GET /v1/deliveries shows it.
  CREATE OR REPLACE FUNCTION chopar.delivery_event() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    INSERT INTO chopar.outbox (type, user_id, payload)
    SELECT 'delivery.' || NEW.status, NEW.user_id, d.doc::jsonb
    FROM chopar.deliveries_api d WHERE d.id = NEW.id;
    RETURN NULL;
  END
  $f$;

  -- The payload is the notification object of the API.
  CREATE OR REPLACE FUNCTION chopar.notification_event() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    INSERT INTO chopar.outbox (type, user_id, payload)
    SELECT TG_ARGV[0], NEW.user_id, n.doc::jsonb
    FROM chopar.notifications_api n WHERE n.id = NEW.id;
    RETURN NULL;
  END
  $f$;

  -- A delivery's end: sent, failed, skipped or canceled, whichever path set it.
  CREATE OR REPLACE TRIGGER deliveries_events AFTER UPDATE OF status ON chopar.deliveries
    FOR EACH ROW
    WHEN (NEW.status IS DISTINCT FROM OLD.status
          AND NEW.status IN ('sent', 'failed', 'skipped', 'canceled')
          AND pg_catalog.strpos(pg_catalog.current_setting('chopar.events', true),
                                ',delivery.' || NEW.status || ',') > 0)
    EXECUTE FUNCTION chopar.delivery_event();

  CREATE OR REPLACE TRIGGER notifications_created_event AFTER INSERT ON chopar.notifications
    FOR EACH ROW
    WHEN (pg_catalog.strpos(pg_catalog.current_setting('chopar.events', true),
                            ',notification.created,') > 0)
    EXECUTE FUNCTION chopar.notification_event('notification.created');

  CREATE OR REPLACE TRIGGER notifications_read_event AFTER UPDATE OF read_at ON chopar.notifications
    FOR EACH ROW
    WHEN (OLD.read_at IS NULL AND NEW.read_at IS NOT NULL
          AND pg_catalog.strpos(pg_catalog.current_setting('chopar.events', true),
                                ',notification.read,') > 0)
    EXECUTE FUNCTION chopar.notification_event('notification.read');
END
$own_events$;
