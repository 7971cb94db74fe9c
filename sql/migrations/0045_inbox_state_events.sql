-- chopar's own events of the inbox states (docs/outbox.md, "chopar's own
-- events"): besides notification.created and notification.read (migration
-- 0010), a change of a notification's state writes notification.seen,
-- .unread, .archived, .unarchived, .snoozed or .unsnoozed, with the
-- notification object of the API, from the same statement-level trigger,
-- in the transaction of the change, for the events [events] emit selects.
--
-- One event per change of a row: marking read marks seen too and writes
-- notification.read only; the snooze loop's return clears snoozed_until,
-- read_at and seen_at and writes notification.unsnoozed only (the object
-- shows it unread). The snooze loop is src/workflow/engine/snooze_returner.cpp.
--
-- Replaces the function only; the triggers that call it (0010's
-- chopar.enable_own_events) stay as they are. Only in chopar's own
-- database: an application's (`chopar outbox install`) has no
-- notifications.
DO $own_events$
BEGIN
  IF pg_catalog.to_regclass('chopar.notifications') IS NULL THEN
    RETURN;
  END IF;

  CREATE OR REPLACE FUNCTION chopar.notification_events() RETURNS trigger LANGUAGE plpgsql AS $f$
  DECLARE
    selected text := COALESCE(pg_catalog.current_setting('chopar.events', true), '');
  BEGIN
    IF TG_OP = 'INSERT' THEN
      IF pg_catalog.strpos(selected, ',notification.created,') > 0 THEN
        INSERT INTO chopar.outbox (type, user_id, payload)
        SELECT 'notification.created', n.user_id, a.doc::jsonb
        FROM new_rows n JOIN chopar.notifications_api a ON a.id = n.id
        ORDER BY n.id;
      END IF;
      RETURN NULL;
    END IF;
    IF pg_catalog.strpos(selected, ',notification.') = 0 THEN
      RETURN NULL;
    END IF;
    INSERT INTO chopar.outbox (type, user_id, payload)
    SELECT e.type, n.user_id, a.doc::jsonb
    FROM new_rows n
    JOIN old_rows o ON o.id = n.id
    CROSS JOIN LATERAL (VALUES
      (1, 'notification.read', o.read_at IS NULL AND n.read_at IS NOT NULL),
      (2, 'notification.seen', o.seen_at IS NULL AND n.seen_at IS NOT NULL
                               AND NOT (o.read_at IS NULL AND n.read_at IS NOT NULL)),
      (3, 'notification.unread', o.read_at IS NOT NULL AND n.read_at IS NULL
                                 AND NOT (o.snoozed_until IS NOT NULL AND n.snoozed_until IS NULL)),
      (4, 'notification.archived', o.archived_at IS NULL AND n.archived_at IS NOT NULL),
      (5, 'notification.unarchived', o.archived_at IS NOT NULL AND n.archived_at IS NULL),
      (6, 'notification.snoozed', n.snoozed_until IS NOT NULL
                                  AND n.snoozed_until IS DISTINCT FROM o.snoozed_until),
      (7, 'notification.unsnoozed', o.snoozed_until IS NOT NULL AND n.snoozed_until IS NULL)
    ) AS e(ord, type, happened)
    JOIN chopar.notifications_api a ON a.id = n.id
    WHERE e.happened AND pg_catalog.strpos(selected, ',' || e.type || ',') > 0
    ORDER BY n.id, e.ord;
    RETURN NULL;
  END
  $f$;
END
$own_events$;
