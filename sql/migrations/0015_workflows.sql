-- migrate: no transaction
-- Workflows (docs/workflows-design.md, docs/api.md "Workflows"): digest
-- windows, delayed notifications, cancellation keys, escalate-if-unread and
-- the `canceled` delivery status. Every workflow is a row with a due time,
-- claimed with FOR UPDATE SKIP LOCKED; nothing waits in a process's memory.
--
-- No transaction: the indexes on notifications and deliveries are built
-- CONCURRENTLY. Every statement is safe to run again from the top (a
-- migration interrupted half-way is repeated whole), and each constraint
-- change is one ALTER TABLE statement (dropped and added together), so no
-- moment exists without it.

-- A digest window for one (user, type, rendered key): opened by its first
-- notification, due at closes_at (earlier when max_items fill it). The
-- closer claims it once due, renders content (the per-channel texts, the
-- shape of notifications.content) and inserts one delivery per channel in
-- the same transaction, leaving it 'closed' — or 'canceled' when
-- cancellation emptied it, and nothing is sent. Notifiers serialise on an
-- advisory lock per (user, type, key) and join only a window whose
-- closes_at is still ahead, so a window is never joined once it is due.
CREATE TABLE IF NOT EXISTS chopar.digests (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  type       text NOT NULL CHECK (type ~ '^[a-z]+(\.[a-z_]+)*$' AND length(type) <= 100),
  key        text NOT NULL CHECK (length(key) <= 255),
  status     text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed', 'canceled')),
  opened_at  timestamptz NOT NULL DEFAULT now(),
  closes_at  timestamptz NOT NULL,
  item_count integer NOT NULL DEFAULT 0 CHECK (item_count >= 0),
  content    jsonb CHECK (content IS NULL OR jsonb_typeof(content) = 'object'),
  closed_at  timestamptz,
  CHECK (closes_at >= opened_at),
  CHECK ((status = 'open') = (closed_at IS NULL)),
  CHECK (status <> 'canceled' OR item_count = 0)
);
-- What the closer claims: open windows by due time.
CREATE INDEX IF NOT EXISTS digests_due ON chopar.digests (closes_at) WHERE status = 'open';
-- A notifier's lookup of the window it may join.
CREATE INDEX IF NOT EXISTS digests_open ON chopar.digests (user_id, type, key, closes_at DESC)
  WHERE status = 'open';

-- The notifications a window holds, each with the channels its user's
-- preferences chose for it (the digest goes on their union). A canceled
-- notification's item is deleted.
CREATE TABLE IF NOT EXISTS chopar.digest_items (
  digest_id       bigint NOT NULL REFERENCES chopar.digests ON DELETE CASCADE,
  notification_id bigint NOT NULL REFERENCES chopar.notifications ON DELETE CASCADE,
  channels        text[] NOT NULL
                    CHECK (cardinality(channels) >= 1
                           AND channels <@ ARRAY['email', 'telegram', 'push', 'sms']::text[]),
  PRIMARY KEY (digest_id, notification_id)
);
CREATE INDEX IF NOT EXISTS digest_items_notification ON chopar.digest_items (notification_id);

-- A notification asked for later (send_at / delay_seconds in the future):
-- not a notification yet, so nothing shows in the inbox, the unread count or
-- SSE. The releaser claims due rows and, in one transaction, notifies with
-- `request` (the parsed request as JSON) and deletes the row. dedup_key is
-- reserved here until then; notification_id is the id drawn for it when it
-- was asked for (the one POST answered), which the notification gets.
CREATE TABLE IF NOT EXISTS chopar.delayed_notifications (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  notification_id  bigint NOT NULL UNIQUE,
  user_id          bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  due_at           timestamptz NOT NULL,
  request          jsonb NOT NULL CHECK (jsonb_typeof(request) = 'object'),
  dedup_key        text CHECK (dedup_key IS NULL OR length(dedup_key) BETWEEN 1 AND 255),
  cancellation_key text CHECK (cancellation_key IS NULL OR length(cancellation_key) BETWEEN 1 AND 255),
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, dedup_key)
);
-- One indexed lookup per wake-up: the earliest due row.
CREATE INDEX IF NOT EXISTS delayed_notifications_due ON chopar.delayed_notifications (due_at);
-- Cancel for every user (cancellation_key) or one (cancellation_key, user_id).
CREATE INDEX IF NOT EXISTS delayed_notifications_cancellation
  ON chopar.delayed_notifications (cancellation_key, user_id) WHERE cancellation_key IS NOT NULL;

-- A notification's cancellation key (docs/api.md "Workflows"). The CHECK is added NOT VALID and then
-- validated: validation scans without blocking writes.
ALTER TABLE chopar.notifications
  ADD COLUMN IF NOT EXISTS cancellation_key text,
  DROP CONSTRAINT IF EXISTS notifications_cancellation_key_check,
  ADD CONSTRAINT notifications_cancellation_key_check
    CHECK (cancellation_key IS NULL OR length(cancellation_key) BETWEEN 1 AND 255) NOT VALID;
ALTER TABLE chopar.notifications VALIDATE CONSTRAINT notifications_cancellation_key_check;

-- Deliveries: the `canceled` status (never sent), the digest a delivery
-- carries, and escalate-if-unread (unless_read: canceled with last_error
-- 'read' when the notification was read by the time it is claimed). A
-- constant default adds the column without rewriting the table.
ALTER TABLE chopar.deliveries
  ADD COLUMN IF NOT EXISTS unless_read boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS digest_id bigint,
  DROP CONSTRAINT IF EXISTS deliveries_status_check,
  ADD CONSTRAINT deliveries_status_check
    CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'skipped', 'canceled')) NOT VALID,
  DROP CONSTRAINT IF EXISTS deliveries_canceled_unsent,
  ADD CONSTRAINT deliveries_canceled_unsent CHECK (status <> 'canceled' OR sent_at IS NULL) NOT VALID,
  DROP CONSTRAINT IF EXISTS deliveries_digest_id_fkey,
  ADD CONSTRAINT deliveries_digest_id_fkey
    FOREIGN KEY (digest_id) REFERENCES chopar.digests ON DELETE CASCADE NOT VALID;
ALTER TABLE chopar.deliveries VALIDATE CONSTRAINT deliveries_status_check;
ALTER TABLE chopar.deliveries VALIDATE CONSTRAINT deliveries_canceled_unsent;
ALTER TABLE chopar.deliveries VALIDATE CONSTRAINT deliveries_digest_id_fkey;

-- Cancel for every user or one, by an index, never a scan. Dropped first: a
-- concurrent build that failed leaves an invalid index behind.
DROP INDEX CONCURRENTLY IF EXISTS chopar.notifications_cancellation;
CREATE INDEX CONCURRENTLY notifications_cancellation
  ON chopar.notifications (cancellation_key, user_id) WHERE cancellation_key IS NOT NULL;
-- A digest's deliveries (the cascade when a window is deleted).
DROP INDEX CONCURRENTLY IF EXISTS chopar.deliveries_digest;
CREATE INDEX CONCURRENTLY deliveries_digest
  ON chopar.deliveries (digest_id) WHERE digest_id IS NOT NULL;
