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
