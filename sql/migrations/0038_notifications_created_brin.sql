-- migrate: no transaction
-- notifications_created (0011), the reports' way to a period's
-- notifications, becomes a BRIN index, as deliveries_created_brin (0013)
-- is for deliveries.
--
-- Why: as a B-tree it was a second way to the lookups by key. The claim and
-- the throttle find a delivery's notification by (id, created_at), the
-- primary key, whose created_at also leaves the other weeks out. When the
-- statistics say created_at is nearly unique (single notifications, each
-- with its own), `created_at = $` alone is costed at one row too, and the
-- planner chose between the two indexes on a tie of a few hundredths. A
-- larger key index, one level deeper after a burst of deletes or simply
-- with a bigger week, lost that tie, and a generic plan that had chosen
-- notifications_created kept it for its connection's life. Each lookup then
-- read every notification of its row's batch, which all share one
-- created_at: 500 of them for a claim of 500 rows, 17.5 ms instead of 0.5
-- (docs/BENCHMARKS.md, "The claim's lookup of its notifications"). A BRIN
-- index is reached only through a bitmap, which the planner never prefers
-- to a unique key's single row, so no statistics can make that choice
-- again.
--
-- What the reports lose is little: their periods are ranges of created_at,
-- which a BRIN index serves by block ranges (notifications are written in
-- created_at order), and a BRIN index costs an insert almost nothing,
-- where the B-tree was an index entry more for every notification.
--
-- The new index is built next to the old one, one partition at a time
-- (0022's procedure: each partition's build holds off writes to that
-- partition only for its own scan, a BRIN index's build being one
-- sequential read); then, in one transaction, the old one is dropped, each
-- partition's part with it, under a short lock, and the new one takes its
-- name. Safe to run again from the start: a notifications_created that is
-- BRIN already is left as it is, and the build skips the partitions done.
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_catalog.pg_class c JOIN pg_catalog.pg_am a ON a.oid = c.relam
             WHERE c.oid = pg_catalog.to_regclass('chopar.notifications_created')
               AND a.amname = 'brin') THEN
    RETURN;
  END IF;
  CALL chopar.create_index_by_partition('chopar.notifications', 'notifications_created_brin',
                                        'created_brin',
                                        'USING brin (created_at) WITH (autosummarize = on)');
  DROP INDEX IF EXISTS chopar.notifications_created;
  ALTER INDEX chopar.notifications_created_brin RENAME TO notifications_created;
END
$$;
