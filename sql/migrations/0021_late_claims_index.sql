-- migrate: no transaction
-- deliveries_claimed_late: the hourly-limit count
-- (src/delivery/queries/count_rate_window.sql) without probing every weekly
-- partition. The count's bound is on claimed_at, the partition key is
-- created_at, so it reads the partitions of rows created since the week of
-- (now − 1 hour) through deliveries_rate, and the older partitions only for
-- the rows claimed after the week they were created in had ended (retries,
-- long deferrals, an outage's backlog, a row created just before Monday
-- 00:00 UTC): those are the rows of this index, a few of each week's. A
-- row created before that week and claimed within the hour always
-- qualifies: it was created before a Monday that is itself before now − 1
-- hour, so its claimed_at (after now − 1 hour) is after the end of its own
-- week.
--
-- Built one partition at a time, each in a transaction of its own: the
-- index of the partitioned table is created ON ONLY it (invalid, instantly),
-- then each partition's index is built (writes to that partition wait for
-- its build; the selective predicate keeps the index itself small, the
-- build reads the partition once) and attached, and the parent index turns
-- valid when the last one is attached. Partitions created later get it with
-- the others (chopar.create_history_partitions). Runs again from the top
-- after a failure: a partition whose index is attached already is skipped.
CREATE INDEX IF NOT EXISTS deliveries_claimed_late ON ONLY chopar.deliveries (user_id, channel, claimed_at)
  WHERE status IN ('sent', 'sending')
    AND claimed_at AT TIME ZONE 'UTC' >= date_trunc('week', created_at AT TIME ZONE 'UTC') + interval '7 days';

DO $$
DECLARE
  part record;
  index_name text;
BEGIN
  FOR part IN
    SELECT c.oid::regclass AS partition, c.relname
    FROM pg_catalog.pg_partition_tree('chopar.deliveries'::regclass) t
    JOIN pg_catalog.pg_class c ON c.oid = t.relid
    WHERE t.isleaf
      AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_index x ON x.indexrelid = i.inhrelid
        WHERE i.inhparent = 'chopar.deliveries_claimed_late'::regclass AND x.indrelid = c.oid)
    ORDER BY c.relname
  LOOP
    index_name := pg_catalog.left(part.relname, 48) || '_claimed_late';
    EXECUTE pg_catalog.format(
      'CREATE INDEX IF NOT EXISTS %I ON %s (user_id, channel, claimed_at) '
      'WHERE status IN (''sent'', ''sending'') '
      'AND claimed_at AT TIME ZONE ''UTC'' >= '
      'date_trunc(''week'', created_at AT TIME ZONE ''UTC'') + interval ''7 days''',
      index_name, part.partition);
    EXECUTE pg_catalog.format('ALTER INDEX chopar.deliveries_claimed_late ATTACH PARTITION chopar.%I',
                              index_name);
    COMMIT;
  END LOOP;
END
$$;
