-- Recurring notifications (DESIGN §2, §3 "Schedules"; API.md "Schedules").
-- One row per schedule holds its pattern, the notification it creates, its
-- catch-up policy and the one instant the scheduler needs: next_fire_at.
-- Columns are ordered fixed-width first so rows carry no alignment padding.

CREATE TABLE chopar.schedules (
  user_id                bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  -- The first occurrence not yet handled (fired or skipped); NULL when the
  -- pattern never fires. Due when <= now.
  next_fire_at           timestamptz,
  -- When the scheduler last fired it, and the due instant of that firing.
  last_fired_at          timestamptz,
  last_due_at            timestamptz,
  -- The due instant of the newest occurrence skipped by the catch-up policy.
  last_skipped_at        timestamptz,
  skipped_count          bigint NOT NULL DEFAULT 0 CHECK (skipped_count >= 0),
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  catchup_window_seconds integer NOT NULL DEFAULT 86400 CHECK (catchup_window_seconds > 0),
  critical               boolean NOT NULL DEFAULT false,
  enabled                boolean NOT NULL DEFAULT true,
  -- The client's id for the schedule, e.g. "pill-17"; used in URLs and dedup keys.
  key                    text PRIMARY KEY CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$'),
  cron                   text NOT NULL CHECK (length(cron) BETWEEN 1 AND 200),
  -- NULL follows the user's zone (users.timezone), so a user who moves is followed.
  timezone               text CHECK (timezone IS NULL OR
                                     timezone ~ '^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$'),
  catchup_policy         text NOT NULL DEFAULT 'latest'
                           CHECK (catchup_policy IN ('latest', 'all', 'none')),
  -- The notification each firing creates: the columns and CHECKs of notifications.
  type                   text NOT NULL CHECK (type ~ '^[a-z]+(\.[a-z_]+)*$' AND length(type) <= 100),
  title                  text NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
  body                   text NOT NULL DEFAULT '' CHECK (length(body) <= 10000),
  link                   text CHECK (link IS NULL OR (link ~ '^/[^/\\]' AND link !~ '[[:cntrl:][:space:]]'
                                                      AND length(link) <= 2000)),
  data                   jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(data) = 'object'),
  -- NULL: every channel (the notify default).
  channels               text[] CHECK (channels IS NULL OR
                                       channels <@ ARRAY['email', 'telegram', 'push', 'sms']::text[]),
  -- Why the scheduler could not compute the next firing (e.g. a zone tzdata no
  -- longer knows); next_fire_at is NULL while it is set.
  last_error             text
);

-- The scheduler's only lookups: the earliest next_fire_at and the due rows in
-- order. Disabled schedules are not in the index at all.
CREATE INDEX schedules_due ON chopar.schedules (next_fire_at) WHERE enabled;
-- A user's schedules: zone changes and the ON DELETE CASCADE.
CREATE INDEX schedules_user ON chopar.schedules (user_id);
