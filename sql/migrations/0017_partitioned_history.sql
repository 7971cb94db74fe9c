-- migrate: no transaction
-- Partitioned history (docs/operations.md, "Partitioned history"):
-- `deliveries` and `sink_messages` become tables partitioned by week of
-- created_at (native declarative RANGE partitioning), so [retention]
-- deliveries_days drops whole old partitions instead of deleting rows, and
-- the hot indexes only hold what the current weeks hold.
--
-- Decisions:
-- - The partition key is created_at. A delivery is created in the
--   statement that creates its notification, with the notification's
--   created_at, so a notification's deliveries share one partition time.
-- - Weekly partitions: Monday 00:00 UTC to the next Monday. chopar creates
--   them ahead itself (chopar.create_history_partitions, from the
--   maintenance loop of every worker process: src/retention); this
--   migration creates the next four weeks.
-- - A primary key or unique constraint of a partitioned table must contain
--   the partition key: deliveries_pkey becomes (id, created_at),
--   deliveries_notification_id_channel_key (notification_id, channel,
--   created_at), sink_messages_pkey (id, created_at). Ids are still drawn
--   from one sequence per table (the parent's identity, continued from the
--   old table's), so an id stays unique; a lookup by id alone probes each
--   partition's index, never a heap scan.
-- - Foreign keys from these tables to others (deliveries -> notifications
--   ON DELETE CASCADE, and any a later migration added) move to the
--   partitioned table unchanged. Foreign keys from other tables INTO these
--   would have to carry created_at: there are none in chopar's schema, and
--   one found here is dropped with a NOTICE (it could only ever have
--   checked the old rows).
-- - `notifications` stays one table: its (user_id, dedup_key) uniqueness
--   across all time and the foreign keys into it would need a separate
--   dedup table and created_at in every referencing table (see
--   docs/operations.md).
--
-- Converting in place, without copying rows or scanning under an exclusive
-- lock:
--   1. a CHECK (created_at < cutover) is added NOT VALID (a moment's lock)
--      and validated (a scan that does not block reads or writes); cutover
--      is a Monday 1 to 8 days ahead;
--   2. the unique indexes the partitioned table needs, (…, created_at), are
--      built CONCURRENTLY on the old table;
--   3. one statement swaps every table at once: under a short ACCESS
--      EXCLUSIVE lock the old table is renamed <table>_legacy, the
--      partitioned table is created LIKE it (columns, defaults, CHECK
--      constraints, identity, generated columns, storage, comments: whatever
--      columns earlier migrations gave it), its indexes recreated from the
--      old table's definitions, its foreign keys, triggers (chopar's own
--      events) and the views on it (deliveries_api) recreated, and the old
--      table ATTACHed as the partition for (MINVALUE, cutover): the
--      validated CHECK proves the partition bound and the indexes of step 2
--      match, so ATTACH reads no rows. Weekly partitions follow.
-- Steps 1 and 2 check the catalog first and step 3 does nothing for a
-- table that is partitioned already, so the file can run again from the
-- top after a failure in steps 1-2; step 3 is the last statement. (A process
-- that dies in the moment between step 3's commit and the record of this
-- migration leaves it unrecorded, and step 2 then fails on the partitioned
-- table: record it by hand, INSERT INTO chopar.schema_migrations (version,
-- name) VALUES (17, '0017_partitioned_history').)
--
-- Generic over what earlier migrations added: columns, defaults, CHECK
-- constraints and identity come with LIKE; every index is recreated from
-- its definition (pg_get_indexdef), a primary key or unique constraint with
-- created_at appended (matched on ATTACH by the index named
-- <constraint>_by_time built in step 2 — one this file does not know is
-- built by ATTACH, under the lock); foreign keys, triggers, views and
-- SQL-standard function bodies from their definitions. Grants, row
-- security and storage parameters of the old table are not carried over:
-- chopar's schema has none on these tables.

-- The Monday 00:00 UTC that begins the week of `t`.
CREATE OR REPLACE FUNCTION chopar.history_week_start(t timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN pg_catalog.date_trunc('week', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';

-- The partitions of a partitioned history table with their bounds, oldest
-- first; the first partition of a converted table starts at -infinity
-- (MINVALUE).
CREATE OR REPLACE FUNCTION chopar.history_partitions(parent regclass)
  RETURNS TABLE (partition regclass, lower_bound timestamptz, upper_bound timestamptz)
  LANGUAGE sql STABLE AS $$
  SELECT c.oid::regclass,
         CASE WHEN b.expr LIKE 'FOR VALUES FROM (MINVALUE)%' THEN '-infinity'::timestamptz
              ELSE pg_catalog.substring(b.expr, 'FROM \(''([^'']+)''\)')::timestamptz END,
         pg_catalog.substring(b.expr, 'TO \(''([^'']+)''\)')::timestamptz
  FROM pg_catalog.pg_inherits i
  JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
  CROSS JOIN LATERAL (SELECT pg_catalog.pg_get_expr(c.relpartbound, c.oid) AS expr) b
  WHERE i.inhparent = parent
  ORDER BY 3
$$;

-- Locks a history table for a change of its partitions: first the tables its
-- foreign keys reference (SHARE ROW EXCLUSIVE: a new or dropped partition
-- adds or drops their foreign-key triggers), then the table itself (ACCESS
-- EXCLUSIVE), held until the transaction ends. The same order as live
-- statements, which write a notification before its deliveries, so the
-- change waits for them instead of deadlocking with them.
CREATE OR REPLACE FUNCTION chopar.lock_history_table(history regclass) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  referenced regclass;
BEGIN
  FOR referenced IN
    SELECT DISTINCT k.confrelid::regclass FROM pg_catalog.pg_constraint k
    WHERE k.conrelid = history AND k.contype = 'f' AND k.confrelid <> history
    ORDER BY 1
  LOOP
    EXECUTE pg_catalog.format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', referenced);
  END LOOP;
  EXECUTE pg_catalog.format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', history);
END
$$;

-- Creates the weekly partitions `parent` lacks from the upper bound of its
-- newest partition until `until` falls inside one, named
-- <table>_p<YYYYMMDD of the Monday>; returns how many. CREATE TABLE IF NOT
-- EXISTS … PARTITION OF, so a partition another process created meanwhile
-- is no error; callers serialise on an advisory lock all the same (see
-- src/retention/queries/lock_history_maintenance.sql). When it creates one,
-- it takes chopar.lock_history_table(parent) (until the caller commits).
CREATE OR REPLACE FUNCTION chopar.create_history_partitions(parent regclass, until timestamptz)
  RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  parent_name text;
  next_lower timestamptz;
  next_upper timestamptz;
  created integer := 0;
BEGIN
  SELECT c.relname INTO parent_name FROM pg_catalog.pg_class c WHERE c.oid = parent;
  SELECT max(p.upper_bound) INTO next_lower FROM chopar.history_partitions(parent) p;
  IF next_lower IS NULL THEN
    RAISE EXCEPTION '% is not a partitioned history table', parent;
  END IF;
  IF next_lower <= until THEN
    PERFORM chopar.lock_history_table(parent);
  END IF;
  WHILE next_lower <= until LOOP
    -- Hours, not days: a day in the session's time zone may be 23 hours.
    next_upper := chopar.history_week_start(next_lower) + interval '168 hours';
    EXECUTE pg_catalog.format('CREATE TABLE IF NOT EXISTS chopar.%I PARTITION OF %s '
                              'FOR VALUES FROM (%L) TO (%L)',
                              parent_name || '_p' ||
                                pg_catalog.to_char(next_lower AT TIME ZONE 'UTC', 'YYYYMMDD'),
                              parent, next_lower, next_upper);
    created := created + 1;
    next_lower := next_upper;
  END LOOP;
  RETURN created;
END
$$;

-- Drops the partitions of `parent` that hold only rows created before
-- `cutoff` (upper bound <= cutoff), oldest first, never the newest one;
-- returns their names (schema-qualified). When it drops one, it takes
-- chopar.lock_history_table(parent) first (until the caller commits), so a
-- drop never deadlocks with live statements; callers set a short
-- lock_timeout.
CREATE OR REPLACE FUNCTION chopar.drop_history_partitions(parent regclass, cutoff timestamptz)
  RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  old record;
  locked boolean := false;
BEGIN
  FOR old IN
    SELECT p.partition, pg_catalog.format('%I.%I', n.nspname, c.relname) AS name
    FROM chopar.history_partitions(parent) p
    JOIN pg_catalog.pg_class c ON c.oid = p.partition
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE p.upper_bound <= cutoff
      AND p.upper_bound < (SELECT max(l.upper_bound) FROM chopar.history_partitions(parent) l)
    ORDER BY p.upper_bound
  LOOP
    IF NOT locked THEN
      PERFORM chopar.lock_history_table(parent);
      locked := true;
    END IF;
    EXECUTE pg_catalog.format('DROP TABLE %s', old.name);
    RETURN NEXT old.name;
  END LOOP;
END
$$;

-- Step 3 for one table (see the top of this file). Does nothing when the
-- table is partitioned already. Expects the caller's transaction to commit
-- right after.
CREATE OR REPLACE FUNCTION chopar.convert_to_history_partitions(table_name text, weeks_ahead integer)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  old_table regclass := pg_catalog.format('chopar.%I', table_name)::regclass;
  legacy text := table_name || '_legacy';
  cutover timestamptz;
  item record;
  indexes jsonb;
  foreign_keys jsonb;
  triggers text[];
  views text[];
  functions text[];
  statement text;
BEGIN
  IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = old_table) = 'p' THEN
    RETURN;
  END IF;
  PERFORM chopar.lock_history_table(old_table);
  SELECT pg_catalog.substring(pg_catalog.pg_get_constraintdef(k.oid), '''([^'']+)''')::timestamptz
  INTO cutover
  FROM pg_catalog.pg_constraint k
  WHERE k.conrelid = old_table AND k.conname = table_name || '_before_partitioning' AND k.convalidated;
  IF cutover IS NULL THEN
    RAISE EXCEPTION 'chopar.% has no validated CHECK %_before_partitioning', table_name, table_name;
  END IF;

  -- What is defined on the old table, read while it still has its name, so
  -- the definitions name the new table when they are run again.
  SELECT pg_catalog.jsonb_agg(x ORDER BY x.name) INTO indexes FROM (
    SELECT ic.relname::text AS name, pg_catalog.pg_get_indexdef(i.indexrelid) AS def,
           k.conname::text AS constraint_name, pg_catalog.pg_get_constraintdef(k.oid) AS constraint_def
    FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
    LEFT JOIN pg_catalog.pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = old_table
    WHERE i.indrelid = old_table AND ic.relname !~ '_by_time$') x;
  SELECT pg_catalog.jsonb_agg(x ORDER BY x.name) INTO foreign_keys FROM (
    SELECT k.conname::text AS name, pg_catalog.pg_get_constraintdef(k.oid) AS def
    FROM pg_catalog.pg_constraint k
    WHERE k.conrelid = old_table AND k.contype = 'f') x;
  SELECT pg_catalog.array_agg(pg_catalog.pg_get_triggerdef(t.oid) ORDER BY t.tgname) INTO triggers
  FROM pg_catalog.pg_trigger t WHERE t.tgrelid = old_table AND NOT t.tgisinternal;
  SELECT pg_catalog.array_agg(pg_catalog.format('CREATE OR REPLACE VIEW %s AS %s', v.oid::regclass,
                                                pg_catalog.pg_get_viewdef(v.oid)) ORDER BY v.oid)
  INTO views
  FROM pg_catalog.pg_class v
  WHERE v.relkind = 'v' AND v.oid IN (
    SELECT r.ev_class FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
    WHERE d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.refobjid = old_table);
  -- SQL-standard function bodies are bound to the table itself, like views.
  SELECT pg_catalog.array_agg(pg_catalog.pg_get_functiondef(d.objid)) INTO functions
  FROM pg_catalog.pg_depend d
  WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.refobjid = old_table AND d.deptype = 'n';

  FOR item IN
    SELECT k.conname, k.conrelid::regclass AS referencing
    FROM pg_catalog.pg_constraint k
    WHERE k.confrelid = old_table AND k.contype = 'f' AND k.conrelid <> old_table
  LOOP
    RAISE NOTICE 'dropping foreign key % of % into chopar.%: it cannot reach a partitioned table',
      item.conname, item.referencing, table_name;
    EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', item.referencing, item.conname);
  END LOOP;

  -- The old table steps aside with its indexes, sequences and triggers.
  EXECUTE pg_catalog.format('ALTER TABLE %s RENAME TO %I', old_table, legacy);
  FOR item IN
    SELECT * FROM pg_catalog.jsonb_to_recordset(COALESCE(indexes, '[]'))
      AS x(name text, def text, constraint_name text, constraint_def text)
  LOOP
    EXECUTE pg_catalog.format('ALTER INDEX chopar.%I RENAME TO %I', item.name,
                              pg_catalog.left(item.name, 55) || '_legacy');
  END LOOP;
  FOR item IN
    SELECT a.attname, pg_catalog.pg_get_serial_sequence(pg_catalog.format('chopar.%I', legacy),
                                                        a.attname) AS sequence
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = old_table AND a.attidentity <> '' AND NOT a.attisdropped
  LOOP
    EXECUTE pg_catalog.format('ALTER SEQUENCE %s RENAME TO %I', item.sequence,
                              pg_catalog.left(legacy || '_' || item.attname, 59) || '_seq');
  END LOOP;
  FOR item IN
    SELECT t.tgname FROM pg_catalog.pg_trigger t WHERE t.tgrelid = old_table AND NOT t.tgisinternal
  LOOP
    EXECUTE pg_catalog.format('DROP TRIGGER %I ON chopar.%I', item.tgname, legacy);
  END LOOP;

  EXECUTE pg_catalog.format(
    'CREATE TABLE chopar.%I (LIKE chopar.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS '
    'INCLUDING IDENTITY INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMPRESSION '
    'INCLUDING COMMENTS) PARTITION BY RANGE (created_at)', table_name, legacy);
  EXECUTE pg_catalog.format('ALTER TABLE chopar.%I DROP CONSTRAINT %I', table_name,
                            table_name || '_before_partitioning');
  -- Identity sequences go on from where the old table's stopped.
  FOR item IN
    SELECT a.attname,
           pg_catalog.pg_get_serial_sequence(pg_catalog.format('chopar.%I', legacy), a.attname) AS old_sequence,
           pg_catalog.pg_get_serial_sequence(pg_catalog.format('chopar.%I', table_name), a.attname) AS new_sequence
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = old_table AND a.attidentity <> '' AND NOT a.attisdropped
  LOOP
    EXECUTE pg_catalog.format(
      'SELECT pg_catalog.setval(%L, COALESCE(pg_catalog.pg_sequence_last_value(%L), 0) + 1, false)',
      item.new_sequence, item.old_sequence);
  END LOOP;

  FOR item IN
    SELECT * FROM pg_catalog.jsonb_to_recordset(COALESCE(indexes, '[]'))
      AS x(name text, def text, constraint_name text, constraint_def text)
  LOOP
    IF item.constraint_name IS NOT NULL THEN
      -- A primary key or unique constraint: the same columns and created_at,
      -- matched on ATTACH by the index built CONCURRENTLY in step 2, made a
      -- constraint of the old table here.
      IF pg_catalog.to_regclass(pg_catalog.format('chopar.%I', item.name || '_by_time')) IS NOT NULL THEN
        EXECUTE pg_catalog.format('ALTER TABLE chopar.%I ADD CONSTRAINT %I UNIQUE USING INDEX %I',
                                  legacy, item.name || '_by_time', item.name || '_by_time');
      END IF;
      EXECUTE pg_catalog.format('ALTER TABLE chopar.%I ADD CONSTRAINT %I %s', table_name,
                                item.constraint_name,
                                pg_catalog.regexp_replace(item.constraint_def, '\)$', ', created_at)'));
    ELSIF item.def ~ '^CREATE UNIQUE' THEN
      RAISE EXCEPTION 'unique index % of chopar.% is not a constraint: add created_at to it first',
        item.name, table_name;
    ELSE
      EXECUTE pg_catalog.format('CREATE INDEX %I ON chopar.%I %s', item.name, table_name,
                                pg_catalog.substring(item.def, ' USING .*$'));
    END IF;
  END LOOP;
  FOR item IN
    SELECT * FROM pg_catalog.jsonb_to_recordset(COALESCE(foreign_keys, '[]')) AS x(name text, def text)
  LOOP
    EXECUTE pg_catalog.format('ALTER TABLE chopar.%I ADD CONSTRAINT %I %s', table_name, item.name,
                              item.def);
  END LOOP;

  EXECUTE pg_catalog.format('ALTER TABLE chopar.%I ATTACH PARTITION chopar.%I '
                            'FOR VALUES FROM (MINVALUE) TO (%L)', table_name, legacy, cutover);
  PERFORM chopar.create_history_partitions(pg_catalog.format('chopar.%I', table_name)::regclass,
                                           pg_catalog.now() + pg_catalog.make_interval(weeks => weeks_ahead));

  FOREACH statement IN ARRAY COALESCE(triggers, '{}') LOOP
    EXECUTE statement;
  END LOOP;
  FOREACH statement IN ARRAY COALESCE(views, '{}') LOOP
    EXECUTE statement;
  END LOOP;
  FOREACH statement IN ARRAY COALESCE(functions, '{}') LOOP
    EXECUTE statement;
  END LOOP;
END
$$;

-- Step 1: the CHECK that proves the old table's partition bound.
DO $$
DECLARE
  table_name text;
BEGIN
  FOREACH table_name IN ARRAY ARRAY['deliveries', 'sink_messages'] LOOP
    IF (SELECT c.relkind FROM pg_catalog.pg_class c
        WHERE c.oid = pg_catalog.format('chopar.%I', table_name)::regclass) = 'r'
       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k
                       WHERE k.conrelid = pg_catalog.format('chopar.%I', table_name)::regclass
                         AND k.conname = table_name || '_before_partitioning') THEN
      EXECUTE pg_catalog.format(
        'ALTER TABLE chopar.%I ADD CONSTRAINT %I CHECK (created_at < %L) NOT VALID', table_name,
        table_name || '_before_partitioning',
        chopar.history_week_start(pg_catalog.now() + interval '8 days'));
    END IF;
  END LOOP;
END
$$;
-- Validation takes SHARE UPDATE EXCLUSIVE: reads and writes go on.
DO $$
DECLARE
  table_name text;
BEGIN
  FOREACH table_name IN ARRAY ARRAY['deliveries', 'sink_messages'] LOOP
    IF (SELECT c.relkind FROM pg_catalog.pg_class c
        WHERE c.oid = pg_catalog.format('chopar.%I', table_name)::regclass) = 'r' THEN
      EXECUTE pg_catalog.format('ALTER TABLE chopar.%I VALIDATE CONSTRAINT %I', table_name,
                                table_name || '_before_partitioning');
    END IF;
  END LOOP;
END
$$;

-- Step 2: the unique indexes with created_at, built without blocking
-- writes. A concurrent build that failed leaves an invalid index: dropped
-- here, so the next run builds it again.
DO $$
DECLARE
  invalid record;
BEGIN
  FOR invalid IN
    SELECT i.indexrelid::regclass AS name FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
    WHERE NOT i.indisvalid AND c.relname IN ('deliveries_pkey_by_time', 'sink_messages_pkey_by_time',
                                             'deliveries_notification_id_channel_key_by_time')
  LOOP
    EXECUTE pg_catalog.format('DROP INDEX %s', invalid.name);
  END LOOP;
END
$$;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_pkey_by_time
  ON chopar.deliveries (id, created_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS deliveries_notification_id_channel_key_by_time
  ON chopar.deliveries (notification_id, channel, created_at);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS sink_messages_pkey_by_time
  ON chopar.sink_messages (id, created_at);

-- Step 3: the swap, both tables in one transaction, four weeks of
-- partitions ahead.
DO $$
BEGIN
  PERFORM chopar.convert_to_history_partitions('deliveries', 4);
  PERFORM chopar.convert_to_history_partitions('sink_messages', 4);
END
$$;
