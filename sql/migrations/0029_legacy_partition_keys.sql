-- migrate: no transaction
-- The first partition of deliveries, notifications and sink_messages (the
-- table as it was before migrations 0017 and 0020, renamed <table>_legacy)
-- kept its old unique constraints beside the ones the partitioned table
-- gave it: a primary key on (id) next to the unique (id, created_at), and
-- for deliveries a unique (notification_id, channel) next to
-- (notification_id, channel, created_at). The weekly partitions have only
-- the second of each pair, which is also what the partitioned table
-- guarantees. Every row written to the first partition paid for both:
-- seven more index entries for a notification with two deliveries and
-- their sink rows, and two more for each update of a delivery (its claim,
-- its outcome: they change indexed columns, so none is HOT). A database
-- created empty writes there for its first 1 to 8 days (until the cutover
-- of 0017), and a converted one keeps two unique indexes the size of its
-- whole history that nothing reads.
--
-- What is dropped is exactly such a pair's first half: a unique or primary
-- key of the partition itself (not one of the partitioned table's) whose
-- columns, with created_at appended, are those of one of the partitioned
-- table's keys on the same partition. Their names are not relied on (an
-- index that 0017 did not build beforehand was built by ATTACH, with a name
-- of PostgreSQL's choosing). A primary key was the partition's replica
-- identity (logical replication of UPDATE and DELETE): the partitioned
-- table's primary key on the partition takes its place first.
--
-- One ALTER TABLE per table, each a statement of its own (no transaction):
-- a catalog change and the removal of the index files under a short
-- ACCESS EXCLUSIVE lock of that partition only, which waits at most
-- lock_timeout (2 s) and is retried; no row is read. A first partition that
-- retention dropped is skipped, and a run that failed half-way starts again
-- from the top and finds only what is left.
CREATE OR REPLACE FUNCTION chopar.drop_legacy_partition_keys(parent regclass, part_name text)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  part regclass := pg_catalog.to_regclass(pg_catalog.format('chopar.%I', part_name));
  created_at_column smallint;
  parent_key text;
  subcommands text[] := '{}';
  old record;
BEGIN
  IF part IS NULL THEN
    RETURN;
  END IF;
  SELECT a.attnum INTO created_at_column
  FROM pg_catalog.pg_attribute a WHERE a.attrelid = part AND a.attname = 'created_at';
  -- The partition's index of the partitioned table's primary key.
  SELECT pi.relname INTO parent_key
  FROM pg_catalog.pg_constraint pk
  JOIN pg_catalog.pg_inherits h ON h.inhparent = pk.conindid
  JOIN pg_catalog.pg_index i ON i.indexrelid = h.inhrelid AND i.indrelid = part
  JOIN pg_catalog.pg_class pi ON pi.oid = i.indexrelid
  WHERE pk.conrelid = parent AND pk.contype = 'p';
  FOR old IN
    SELECT c.conname, c.contype
    FROM pg_catalog.pg_constraint c
    WHERE c.conrelid = part AND c.contype IN ('p', 'u') AND c.conparentid = 0
      AND EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k
                  WHERE k.conrelid = part AND k.contype IN ('p', 'u') AND k.conparentid <> 0
                    AND k.conkey = c.conkey || created_at_column)
    ORDER BY c.conname
  LOOP
    IF old.contype = 'p' THEN
      IF parent_key IS NULL THEN
        RAISE EXCEPTION '% has no index of %''s primary key to be its replica identity', part, parent;
      END IF;
      subcommands := subcommands || pg_catalog.format('REPLICA IDENTITY USING INDEX %I', parent_key);
    END IF;
    subcommands := subcommands || pg_catalog.format('DROP CONSTRAINT %I', old.conname);
  END LOOP;
  IF pg_catalog.cardinality(subcommands) > 0 THEN
    EXECUTE pg_catalog.format('ALTER TABLE %s %s', part,
                              pg_catalog.array_to_string(subcommands, ', '));
  END IF;
END
$$;
SELECT chopar.drop_legacy_partition_keys('chopar.notifications', 'notifications_legacy');
SELECT chopar.drop_legacy_partition_keys('chopar.deliveries', 'deliveries_legacy');
SELECT chopar.drop_legacy_partition_keys('chopar.sink_messages', 'sink_messages_legacy');
DROP FUNCTION chopar.drop_legacy_partition_keys(regclass, text);
