-- migrate: no transaction
-- A broadcast's deliveries are claimed after every ordinary delivery that is
-- due (src/delivery/queries/claim_candidates.sql): a notification created
-- while the workers are behind a broadcast's pace is not queued behind the
-- broadcast's due deliveries. `bulk` marks a broadcast's deliveries;
-- deliveries_due_ordinary finds the others in due order without reading
-- past the broadcast's. It holds only queued rows that are not bulk, a few
-- of each partition's, so it costs the broadcast's inserts nothing and an
-- ordinary insert one small index entry.
--
-- The column's default is a constant: added to the catalog only, no
-- partition is rewritten.
ALTER TABLE chopar.deliveries ADD COLUMN IF NOT EXISTS bulk boolean NOT NULL DEFAULT false;

-- An index of a big partitioned table, built without holding writes to all
-- of it for the whole build (CREATE INDEX CONCURRENTLY does not take a
-- partitioned table): the index is created ON ONLY the table (invalid,
-- instantly), then each partition's is built in a transaction of its own
-- (writes to that partition wait for its build) and attached; the index
-- turns valid when the last one is. Partitions created later get it with
-- the others. Safe to run again from the top after a failure: a partition
-- whose index is attached already is skipped. `definition` is what follows
-- the table's name in CREATE INDEX; each partition's index is named after
-- the partition and `suffix`. (0021_late_claims_index.sql spells the same
-- steps out.)
CREATE OR REPLACE PROCEDURE chopar.create_index_by_partition(parent regclass, index_name text,
                                                             suffix text, definition text)
LANGUAGE plpgsql AS $$
DECLARE
  part record;
  part_index text;
BEGIN
  EXECUTE pg_catalog.format('CREATE INDEX IF NOT EXISTS %I ON ONLY %s %s', index_name, parent,
                            definition);
  FOR part IN
    SELECT c.oid::regclass AS partition, c.relname
    FROM pg_catalog.pg_partition_tree(parent) t
    JOIN pg_catalog.pg_class c ON c.oid = t.relid
    WHERE t.isleaf
      AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_index x ON x.indexrelid = i.inhrelid
        WHERE i.inhparent = pg_catalog.to_regclass('chopar.' || index_name) AND x.indrelid = c.oid)
    ORDER BY c.relname
  LOOP
    part_index := pg_catalog.left(part.relname, 48) || '_' || suffix;
    EXECUTE pg_catalog.format('CREATE INDEX IF NOT EXISTS %I ON %s %s', part_index, part.partition,
                              definition);
    EXECUTE pg_catalog.format('ALTER INDEX chopar.%I ATTACH PARTITION chopar.%I', index_name,
                              part_index);
    COMMIT;
  END LOOP;
END
$$;

CALL chopar.create_index_by_partition('chopar.deliveries', 'deliveries_due_ordinary', 'due_ordinary',
                                      '(next_attempt_at) WHERE status = ''queued'' AND NOT bulk');
