-- migrate: no transaction
-- Partitioned notifications (docs/operations.md, "Partitioned
-- notifications"): `notifications` becomes a table partitioned by week of
-- created_at, converted in place exactly as 0017 converted `deliveries`
-- (chopar.convert_to_history_partitions), so [retention]
-- notifications_days can drop whole old weeks.
--
-- What notifications need beyond deliveries:
-- - A dedup table, chopar.notification_dedup, PRIMARY KEY (user_id,
--   dedup_key): a partitioned table can only enforce a unique key that
--   contains created_at, so the (user_id, dedup_key) uniqueness across all
--   time moves there. It is the only arbiter of a key: immediate
--   notifications, broadcasts and delayed notifications (which reserve
--   their key with the id drawn for them) insert their key there first, ON
--   CONFLICT DO NOTHING. notifications.dedup_key stays (the API shows it);
--   its unique constraint is dropped in the swap. A key is remembered for
--   the retention period: retention deletes the rows older than its cutoff.
-- - Foreign keys into notifications (deliveries.notification_id,
--   digest_items.notification_id, ON DELETE CASCADE) cannot reach a
--   partitioned table without created_at, which deliveries do not share
--   (a digest's deliveries are created when it closes): they are dropped
--   (by the conversion) and their invariant — every delivery and digest
--   item names an existing notification — is kept by the only two ways a
--   notification goes: deleting its user (the trigger users_history_deleted
--   below; a user's digests and their items cascade as before) and
--   retention, which drops deliveries before the notifications they name
--   (app::LoadConfig refuses a notifications_days that could not) and
--   deletes the items of digests closed before its cutoff.
--
-- Processes of the previous version insert with ON CONFLICT (user_id,
-- dedup_key) on notifications, which has no such constraint afterwards:
-- stop every process before this migration (no rolling upgrade across it).
--
-- Like 0017, every step checks the catalog first, so the file can run again
-- from the top after a failure; the swap is the last statement.

-- The dedup table and its backfill (outside the swap: one scan of the keyed
-- rows that blocks nothing). Delayed notifications reserve their key with
-- the id drawn for them, dated when they fall due.
CREATE TABLE IF NOT EXISTS chopar.notification_dedup (
  user_id         bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  dedup_key       text NOT NULL CHECK (length(dedup_key) BETWEEN 1 AND 255),
  notification_id bigint NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (user_id, dedup_key)
);
-- Retention deletes the keys older than its cutoff, oldest first.
CREATE INDEX IF NOT EXISTS notification_dedup_created ON chopar.notification_dedup (created_at);
INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
SELECT n.user_id, n.dedup_key, n.id, n.created_at
FROM chopar.notifications n
WHERE n.dedup_key IS NOT NULL
ON CONFLICT (user_id, dedup_key) DO NOTHING;
INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
SELECT d.user_id, d.dedup_key, d.notification_id, d.due_at
FROM chopar.delayed_notifications d
WHERE d.dedup_key IS NOT NULL
ON CONFLICT (user_id, dedup_key) DO NOTHING;

-- Step 1 of the conversion: the CHECK that proves the old table's partition
-- bound, added NOT VALID (a moment's lock) and validated (a scan that does
-- not block reads or writes).
DO $$
BEGIN
  IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = 'chopar.notifications'::regclass) = 'r'
     AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k
                     WHERE k.conrelid = 'chopar.notifications'::regclass
                       AND k.conname = 'notifications_before_partitioning') THEN
    EXECUTE pg_catalog.format(
      'ALTER TABLE chopar.notifications ADD CONSTRAINT notifications_before_partitioning '
      'CHECK (created_at < %L) NOT VALID',
      chopar.history_week_start(pg_catalog.now() + interval '8 days'));
  END IF;
END
$$;
DO $$
BEGIN
  IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = 'chopar.notifications'::regclass) = 'r' THEN
    ALTER TABLE chopar.notifications VALIDATE CONSTRAINT notifications_before_partitioning;
  END IF;
END
$$;

-- Step 2: the primary key with created_at, built without blocking writes
-- (an invalid one left by a failed build is dropped first). The (user_id,
-- dedup_key) constraint gets no such index: it is dropped in the swap.
DO $$
DECLARE
  invalid record;
BEGIN
  FOR invalid IN
    SELECT i.indexrelid::regclass AS name FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
    WHERE NOT i.indisvalid AND c.relname = 'notifications_pkey_by_time'
  LOOP
    EXECUTE pg_catalog.format('DROP INDEX %s', invalid.name);
  END LOOP;
END
$$;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS notifications_pkey_by_time
  ON chopar.notifications (id, created_at);

-- What the foreign keys' cascades did when a user goes: their deliveries
-- (index deliveries_user). Statement-level, after the cascades of the
-- statement (the user's notifications, digests and their items) ran.
CREATE OR REPLACE FUNCTION chopar.delete_users_history() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chopar.deliveries d USING gone_users g WHERE d.user_id = g.id;
  RETURN NULL;
END
$$;

-- Step 3: the swap, in one transaction. Under the table's lock: the keys
-- written since the backfill (an upgrade stops every process first; this
-- re-check is for one that was not), the (user_id, dedup_key) constraint
-- dropped, the trigger that replaces the cascade into deliveries, the
-- foreign keys into notifications dropped, then the conversion and four
-- weeks of partitions ahead.
DO $$
DECLARE
  reference record;
BEGIN
  IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = 'chopar.notifications'::regclass) = 'r' THEN
    PERFORM chopar.lock_history_table('chopar.notifications'::regclass);
    -- Through notifications_created: only the rows of the hour before the
    -- newest key backfilled are read (a delayed key is dated in the future).
    INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
    SELECT n.user_id, n.dedup_key, n.id, n.created_at
    FROM chopar.notifications n
    WHERE n.dedup_key IS NOT NULL
      AND n.created_at >= (SELECT coalesce(max(k.created_at), '-infinity')
                           FROM chopar.notification_dedup k
                           WHERE k.created_at <= pg_catalog.now()) - interval '1 hour'
    ON CONFLICT (user_id, dedup_key) DO NOTHING;
    ALTER TABLE chopar.notifications DROP CONSTRAINT IF EXISTS notifications_user_id_dedup_key_key;
    -- The foreign keys into notifications, each where it was declared (its
    -- copies on the partitions of deliveries go with it).
    FOR reference IN
      SELECT k.conname, k.conrelid::regclass AS referencing
      FROM pg_catalog.pg_constraint k
      WHERE k.confrelid = 'chopar.notifications'::regclass AND k.contype = 'f'
        AND k.conparentid = 0
    LOOP
      EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', reference.referencing,
                                reference.conname);
    END LOOP;
    CREATE OR REPLACE TRIGGER users_history_deleted AFTER DELETE ON chopar.users
      REFERENCING OLD TABLE AS gone_users
      FOR EACH STATEMENT EXECUTE FUNCTION chopar.delete_users_history();
  END IF;
  PERFORM chopar.convert_to_history_partitions('notifications', 4);
END
$$;
