-- migrate: no transaction
-- Two things that must not be lost silently.
--
-- 1. Canceling a broadcast stops every piece of it not yet sent, whatever
-- its status (docs/api.md "Topics and broadcasts"): queued deliveries,
-- delayed notifications and digest items, found through each recipient's
-- dedup key `broadcast:<id>` (notification_dedup), which delayed
-- notifications reserve too. What the walk stopped is counted on the
-- broadcast: the cancel answer and GET /v1/broadcasts/{id} show it.
-- Constant defaults: catalog-only changes, no rewrite.
--
-- 2. A delayed notification whose stored request no longer makes a
-- notification when it falls due (its type's template lost the title it
-- relied on, …) is kept, marked failed with the reason, and left out of
-- the due set: never released, never retried. The releaser reads the due
-- set by a partial index of the rows still waiting, so failed rows are
-- never scanned again.
--
-- No transaction: the index is built CONCURRENTLY (delayed_notifications
-- holds every notification asked for later). Every statement is safe to run
-- again from the top; each constraint change is one ALTER TABLE statement.
ALTER TABLE chopar.broadcasts
  ADD COLUMN IF NOT EXISTS stopped_deliveries bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS stopped_delayed bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS stopped_digest_items bigint NOT NULL DEFAULT 0;

ALTER TABLE chopar.delayed_notifications
  ADD COLUMN IF NOT EXISTS failed_at timestamptz,
  ADD COLUMN IF NOT EXISTS last_error text,
  DROP CONSTRAINT IF EXISTS delayed_notifications_failed_check,
  ADD CONSTRAINT delayed_notifications_failed_check
    CHECK ((failed_at IS NULL) = (last_error IS NULL) AND length(last_error) <= 1000) NOT VALID;
ALTER TABLE chopar.delayed_notifications VALIDATE CONSTRAINT delayed_notifications_failed_check;

DROP INDEX CONCURRENTLY IF EXISTS chopar.delayed_notifications_waiting;
CREATE INDEX CONCURRENTLY delayed_notifications_waiting
  ON chopar.delayed_notifications (due_at) WHERE failed_at IS NULL;
DROP INDEX CONCURRENTLY IF EXISTS chopar.delayed_notifications_due;
