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
-- statement-level trigger (one INSERT per statement, from its transition
-- tables), so it commits or rolls back with the change, whichever statement
-- made it. The triggers exist only once a chopar process has started with
-- [events] emit set (chopar.enable_own_events()): a database that never
-- asked for events runs its delivery path without them. Which events a
-- session writes is its setting `chopar.events` (",delivery.sent,…,"),
-- which chopar puts in the startup options of its connections from
-- [events] emit; unset or empty, the triggers return at once. Only in
-- chopar's own database: an application's (`chopar outbox install`) has no
-- notifications.
DO $own_events$
BEGIN
  IF pg_catalog.to_regclass('chopar.deliveries') IS NULL THEN
    RETURN;
  END IF;

  -- A delivery's end (sent, failed, skipped or canceled, whichever path set
  -- it), with the delivery as GET /v1/deliveries shows it.
  CREATE OR REPLACE FUNCTION chopar.delivery_events() RETURNS trigger LANGUAGE plpgsql AS $f$
  DECLARE
    selected text := pg_catalog.current_setting('chopar.events', true);
  BEGIN
    IF pg_catalog.strpos(selected, ',delivery.') > 0 THEN
      INSERT INTO chopar.outbox (type, user_id, payload)
      SELECT 'delivery.' || n.status, n.user_id,
             jsonb_build_object('id', n.id, 'notification_id', n.notification_id,
                                'user_id', n.user_id, 'channel', n.channel, 'status', n.status,
                                'attempts', n.attempts, 'last_error', n.last_error,
                                'provider_message_id', n.provider_message_id,
                                'provider_status', n.provider_status,
                                'next_attempt_at', chopar.api_time(n.next_attempt_at),
                                'created_at', chopar.api_time(n.created_at),
                                'updated_at', chopar.api_time(n.updated_at),
                                'sent_at', chopar.api_time(n.sent_at))
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status IS DISTINCT FROM o.status
        AND n.status IN ('sent', 'failed', 'skipped', 'canceled')
        AND pg_catalog.strpos(selected, ',delivery.' || n.status || ',') > 0
      ORDER BY n.id;
    END IF;
    RETURN NULL;
  END
  $f$;

  -- notification.created (TG_OP INSERT) and notification.read (the first
  -- read_at), with the notification object of the API.
  CREATE OR REPLACE FUNCTION chopar.notification_events() RETURNS trigger LANGUAGE plpgsql AS $f$
  DECLARE
    event_type text := CASE TG_OP WHEN 'INSERT' THEN 'notification.created'
                                               ELSE 'notification.read' END;
  BEGIN
    IF COALESCE(pg_catalog.strpos(pg_catalog.current_setting('chopar.events', true),
                                  ',' || event_type || ','), 0) = 0 THEN
      RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
      INSERT INTO chopar.outbox (type, user_id, payload)
      SELECT event_type, n.user_id, a.doc::jsonb
      FROM new_rows n JOIN chopar.notifications_api a ON a.id = n.id
      ORDER BY n.id;
    ELSE
      INSERT INTO chopar.outbox (type, user_id, payload)
      SELECT event_type, n.user_id, a.doc::jsonb
      FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chopar.notifications_api a ON a.id = n.id
      WHERE o.read_at IS NULL AND n.read_at IS NOT NULL
      ORDER BY n.id;
    END IF;
    RETURN NULL;
  END
  $f$;

  -- Installs the triggers when they are missing; a no-op after that.
  CREATE OR REPLACE FUNCTION chopar.enable_own_events() RETURNS void LANGUAGE plpgsql AS $f$
  BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
               WHERE tgrelid = 'chopar.deliveries'::regclass AND tgname = 'deliveries_events') THEN
      RETURN;
    END IF;
    -- One process at a time; the others find the triggers there.
    LOCK TABLE chopar.notifications, chopar.deliveries IN SHARE ROW EXCLUSIVE MODE;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
               WHERE tgrelid = 'chopar.deliveries'::regclass AND tgname = 'deliveries_events') THEN
      RETURN;
    END IF;
    CREATE TRIGGER deliveries_events AFTER UPDATE ON chopar.deliveries
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION chopar.delivery_events();
    CREATE TRIGGER notifications_created_events AFTER INSERT ON chopar.notifications
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION chopar.notification_events();
    CREATE TRIGGER notifications_read_events AFTER UPDATE ON chopar.notifications
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION chopar.notification_events();
  END
  $f$;
END
$own_events$;
