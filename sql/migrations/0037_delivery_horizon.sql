-- The horizon of active deliveries: no queued or sending delivery has a
-- created_at before active_from. The worker's lookups by status (the
-- claim's lanes, the wake-up question) bound created_at by it, so
-- PostgreSQL leaves the older weekly partitions out before it opens their
-- indexes: a year of kept history costs the claim what a few weeks do
-- (docs/BENCHMARKS.md, "The horizon of active deliveries, built").
--
-- The invariant is kept by the only two writers of the row:
-- - chopar.advance_delivery_horizon (the history maintenance pass) moves it
--   forward, under the row's lock, past whole weeks that hold no queued or
--   sending row;
-- - a requeue of an older delivery (an operator's retry) lowers it to that
--   delivery's created_at in the requeue's own statement.
-- Every other delivery is created at the inserting host's now, far inside
-- the two weeks the advance always leaves behind.
--
-- It starts at -infinity: nothing is left out until the first pass.
CREATE TABLE chopar.delivery_horizon (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  active_from timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO chopar.delivery_horizon (active_from) VALUES ('-infinity');

-- Moves the horizon past the weekly partitions of chopar.deliveries that
-- ended more than `margin` before `now` and hold no queued or sending row,
-- oldest first, stopping at the first that holds one. The margin is for
-- created_at, stamped by the inserting host's clock. The row is locked
-- first, and each partition is probed by a later statement, whose snapshot
-- sees every requeue that committed while this waited for the lock; a
-- requeue that comes later waits for this transaction and lowers the row
-- after it. Returns the horizon.
CREATE FUNCTION chopar.advance_delivery_horizon(now timestamptz, margin interval)
  RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
  horizon timestamptz;
  moved   timestamptz;
  part    record;
  busy    boolean;
BEGIN
  SELECT h.active_from INTO horizon FROM chopar.delivery_horizon h FOR UPDATE;
  moved := horizon;
  FOR part IN
    SELECT p.partition, p.upper_bound
    FROM chopar.history_partitions('chopar.deliveries'::regclass) p
    WHERE p.upper_bound > horizon AND p.upper_bound <= now - margin
    ORDER BY p.upper_bound
  LOOP
    -- Each status through its own partial index (deliveries_due, deliveries_leased).
    EXECUTE pg_catalog.format(
      'SELECT EXISTS (SELECT FROM %1$s WHERE status = ''queued'') '
      '    OR EXISTS (SELECT FROM %1$s WHERE status = ''sending'')', part.partition)
      INTO busy;
    EXIT WHEN busy;
    moved := part.upper_bound;
  END LOOP;
  IF moved <> horizon THEN
    UPDATE chopar.delivery_horizon SET active_from = moved, updated_at = now;
  END IF;
  RETURN moved;
END
$$;
