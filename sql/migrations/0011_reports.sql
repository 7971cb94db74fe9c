-- Periodic reports and anomaly alerts to admins (docs/configuration.md
-- "[[reports]]", docs/api.md "Reports"). The jobs themselves are
-- configuration; the database keeps what must hold across restarts, crashes
-- and instances: which periods are reported, and each job's last outcome.

-- One row per (job, period) reported. Inserted in the same transaction as
-- the report's notifications, so a period is reported exactly once however
-- many chopar processes run the job or crash; a run that found nothing to
-- say (an anomaly check with no anomaly) is a row with recipients = 0.
CREATE TABLE chopar.report_runs (
  job        text NOT NULL CHECK (job ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  period_key text NOT NULL CHECK (length(period_key) BETWEEN 1 AND 200),
  -- The cron occurrence the run is for, and when it was committed.
  due_at     timestamptz NOT NULL,
  ran_at     timestamptz NOT NULL,
  -- Notifications created (or found by their dedup key) for it.
  recipients integer NOT NULL DEFAULT 0 CHECK (recipients >= 0),
  PRIMARY KEY (job, period_key)
);
-- GET /v1/reports: a job's newest runs.
CREATE INDEX report_runs_recent ON chopar.report_runs (job, ran_at DESC);

-- Each job's last outcome, written by whichever instance ran or tried it.
CREATE TABLE chopar.report_jobs (
  job             text PRIMARY KEY CHECK (job ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  last_success_at timestamptz,
  -- Why the last failed attempt did not run (source error, no recipient),
  -- and failed attempts since the last success.
  last_error      text,
  last_error_at   timestamptz,
  failures        integer NOT NULL DEFAULT 0 CHECK (failures >= 0)
);

-- recipients = "admins": only admin rows are in the index.
CREATE INDEX users_admins ON chopar.users (id) WHERE admin;

-- The builtin statistics read a period's notifications by creation time, and
-- reach their deliveries through UNIQUE (notification_id, channel), so the
-- deliveries table needs no index of its own for them (and its hot path no
-- extra index entry per status change). One entry per notification; the
-- build takes a write lock on notifications while it runs (migrations run in
-- a transaction, so not CONCURRENTLY).
CREATE INDEX notifications_created ON chopar.notifications (created_at);
