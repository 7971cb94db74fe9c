-- Users, their addresses, notifications and deliveries (DESIGN §2).
-- Every invariant the API checks is enforced here too, as the last layer.

CREATE TABLE chopar.users (
  id          bigint PRIMARY KEY,
  email       text CHECK (email IS NULL OR (email ~ '^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$'
                                            AND length(email) <= 254)),
  phone       text CHECK (phone IS NULL OR phone ~ '^\+[1-9][0-9]{6,14}$'),
  timezone    text NOT NULL DEFAULT 'UTC' CHECK (timezone ~ '^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$'),
  locale      text NOT NULL DEFAULT 'en' CHECK (locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$'),
  preferences jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(preferences) = 'object'),
  quiet_start time,
  quiet_end   time,
  admin       boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK ((quiet_start IS NULL) = (quiet_end IS NULL)),
  CHECK (quiet_start IS NULL OR quiet_start <> quiet_end)
);

-- One Telegram chat per user. A user who blocks the bot keeps the row with
-- active = false, so unblocking restores it.
CREATE TABLE chopar.telegram_connections (
  user_id    bigint PRIMARY KEY REFERENCES chopar.users ON DELETE CASCADE,
  chat_id    bigint NOT NULL,
  active     boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE chopar.push_subscriptions (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  endpoint   text NOT NULL UNIQUE CHECK (endpoint ~ '^https?://[^[:space:]]+$' AND length(endpoint) <= 2048),
  p256dh     text NOT NULL CHECK (p256dh ~ '^[A-Za-z0-9_-]{87}$'),   -- 65-byte point, base64url
  auth       text NOT NULL CHECK (auth ~ '^[A-Za-z0-9_-]{22}$'),     -- 16 bytes, base64url
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_subscriptions_user ON chopar.push_subscriptions (user_id);

CREATE TABLE chopar.notifications (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  type       text NOT NULL CHECK (type ~ '^[a-z]+(\.[a-z_]+)*$' AND length(type) <= 100),
  title      text NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
  body       text NOT NULL DEFAULT '' CHECK (length(body) <= 10000),
  -- Only an internal path: not "https://…", not "//host", not "/\host", no control characters.
  link       text CHECK (link IS NULL OR (link ~ '^/[^/\\]' AND link !~ '[[:cntrl:][:space:]]'
                                          AND length(link) <= 2000)),
  data       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(data) = 'object'),
  dedup_key  text CHECK (dedup_key IS NULL OR length(dedup_key) BETWEEN 1 AND 255),
  critical   boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  read_at    timestamptz,
  UNIQUE (user_id, dedup_key)
);
-- Keyset pagination of a user's inbox, newest first.
CREATE INDEX notifications_inbox ON chopar.notifications (user_id, created_at DESC, id DESC);
-- The unread count and the unread filter read only unread rows.
CREATE INDEX notifications_unread ON chopar.notifications (user_id, created_at DESC, id DESC)
  WHERE read_at IS NULL;

CREATE TABLE chopar.deliveries (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  notification_id     bigint NOT NULL REFERENCES chopar.notifications ON DELETE CASCADE,
  user_id             bigint NOT NULL,  -- denormalised for the rate limit
  channel             text NOT NULL CHECK (channel IN ('email', 'telegram', 'push', 'sms')),
  status              text NOT NULL DEFAULT 'queued'
                        CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'skipped')),
  attempts            integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at     timestamptz NOT NULL DEFAULT now(),
  lease_until         timestamptz,
  claim_token         uuid,
  -- When the delivery was claimed for sending: the instant the hourly limit counts.
  claimed_at          timestamptz,
  last_error          text,
  provider_message_id text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  sent_at             timestamptz,
  UNIQUE (notification_id, channel),
  CHECK (status <> 'sending' OR (lease_until IS NOT NULL AND claim_token IS NOT NULL
                                 AND claimed_at IS NOT NULL)),
  CHECK (status <> 'sent' OR (sent_at IS NOT NULL AND claimed_at IS NOT NULL))
);
-- What workers claim: queued rows by due time, and sending rows whose lease ran out.
CREATE INDEX deliveries_due ON chopar.deliveries (next_attempt_at) WHERE status = 'queued';
CREATE INDEX deliveries_leased ON chopar.deliveries (lease_until) WHERE status = 'sending';
-- The sliding-hour rate limit per (user, channel).
CREATE INDEX deliveries_rate ON chopar.deliveries (user_id, channel, claimed_at)
  WHERE status IN ('sent', 'sending');
CREATE INDEX deliveries_notification ON chopar.deliveries (notification_id);
CREATE INDEX deliveries_user ON chopar.deliveries (user_id, id DESC);
CREATE INDEX deliveries_status ON chopar.deliveries (status, id DESC);

-- What the sink channel "sent": the admin console shows it, tests count it.
CREATE TABLE chopar.sink_messages (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL,
  channel     text NOT NULL CHECK (channel IN ('email', 'telegram', 'push', 'sms')),
  user_id     bigint NOT NULL,
  address     text,
  subject     text,
  body        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sink_messages_delivery ON chopar.sink_messages (delivery_id);

-- The API's JSON shapes, rendered next to the data. Plain views: the planner
-- inlines them, so the indexes above still serve every query through them.
CREATE FUNCTION chopar.api_time(t timestamptz) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');

CREATE VIEW chopar.notifications_api AS
SELECT n.id, n.user_id, n.created_at, n.read_at,
       json_build_object('id', n.id, 'user_id', n.user_id, 'type', n.type, 'title', n.title,
                         'body', n.body, 'link', n.link, 'data', n.data,
                         'critical', n.critical, 'dedup_key', n.dedup_key,
                         'created_at', chopar.api_time(n.created_at),
                         'read_at', chopar.api_time(n.read_at)) AS doc
FROM chopar.notifications n;

CREATE VIEW chopar.deliveries_api AS
SELECT d.id, d.notification_id, d.user_id, d.channel, d.status,
       json_build_object('id', d.id, 'notification_id', d.notification_id, 'user_id', d.user_id,
                         'channel', d.channel, 'status', d.status, 'attempts', d.attempts,
                         'last_error', d.last_error, 'provider_message_id', d.provider_message_id,
                         'next_attempt_at', chopar.api_time(d.next_attempt_at),
                         'created_at', chopar.api_time(d.created_at),
                         'updated_at', chopar.api_time(d.updated_at),
                         'sent_at', chopar.api_time(d.sent_at)) AS doc
FROM chopar.deliveries d;
