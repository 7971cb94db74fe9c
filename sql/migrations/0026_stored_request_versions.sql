-- The version of the stored form of a notification request kept for later
-- (src/hub/stored_request.hpp): a delayed notification's request and a
-- broadcast's notification are decoded by their version's own reader, not
-- by the API's validator, so a rule the API tightens never drops work
-- accepted before it. Rows written before this migration, and by processes
-- of the version before it during a rolling upgrade, are version 1: the
-- default. Constant defaults and NOT VALID checks: catalog-only changes;
-- VALIDATE scans without blocking writes.
ALTER TABLE chopar.delayed_notifications
  ADD COLUMN IF NOT EXISTS request_version smallint NOT NULL DEFAULT 1;
ALTER TABLE chopar.delayed_notifications
  DROP CONSTRAINT IF EXISTS delayed_notifications_request_version_check,
  ADD CONSTRAINT delayed_notifications_request_version_check CHECK (request_version >= 1) NOT VALID;
ALTER TABLE chopar.delayed_notifications VALIDATE CONSTRAINT delayed_notifications_request_version_check;

ALTER TABLE chopar.broadcasts
  ADD COLUMN IF NOT EXISTS notification_version smallint NOT NULL DEFAULT 1;
ALTER TABLE chopar.broadcasts
  DROP CONSTRAINT IF EXISTS broadcasts_notification_version_check,
  ADD CONSTRAINT broadcasts_notification_version_check CHECK (notification_version >= 1) NOT VALID;
ALTER TABLE chopar.broadcasts VALIDATE CONSTRAINT broadcasts_notification_version_check;
