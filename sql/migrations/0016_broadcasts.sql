-- Topics, their subscribers, and broadcasts: one notification per recipient
-- of a topic (or of every user), fanned out in the background in batches
-- (docs/api.md "Topics and broadcasts").

CREATE TABLE chopar.topics (
  key        text PRIMARY KEY CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$'),
  name       text NOT NULL CHECK (length(name) <= 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The fan-out walks a topic's subscribers in user_id order from a cursor:
-- the primary key is that walk.
CREATE TABLE chopar.topic_subscribers (
  topic      text NOT NULL REFERENCES chopar.topics ON DELETE CASCADE,
  user_id    bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, user_id)
);
-- Deleting a user finds its subscriptions without a scan.
CREATE INDEX topic_subscribers_user ON chopar.topic_subscribers (user_id);

-- A broadcast: the notification to give each recipient (the body of POST
-- /v1/notifications without user_id), the audience, and how far the fan-out
-- has walked (`cursor`: the last user id done). A fan-out batch holds the
-- row locked for its transaction and takes it only when `lease_until` has
-- passed or is its own: two processes never fan out one broadcast at once,
-- and after a crash another process continues when the lease runs out.
-- `deliveries_due_at` is when the next batch's deliveries fall due: the
-- broadcast's deliveries are spread out in time so ordinary notifications
-- created meanwhile are not queued behind all of them.
CREATE TABLE chopar.broadcasts (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  topic             text,
  audience          text NOT NULL CHECK (audience IN ('topic', 'all')),
  notification      jsonb NOT NULL CHECK (jsonb_typeof(notification) = 'object'),
  dedup_key         text UNIQUE CHECK (length(dedup_key) BETWEEN 1 AND 200),
  status            text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'canceled')),
  cursor            bigint,
  recipients        bigint NOT NULL DEFAULT 0,
  created           bigint NOT NULL DEFAULT 0,
  due_at            timestamptz NOT NULL DEFAULT now(),
  lease_until       timestamptz,
  lease_owner       text,
  deliveries_due_at timestamptz NOT NULL DEFAULT now(),
  created_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  CHECK ((audience = 'topic') = (topic IS NOT NULL)),
  CHECK ((status = 'running') = (finished_at IS NULL))
);
CREATE INDEX broadcasts_running ON chopar.broadcasts (due_at) WHERE status = 'running';
