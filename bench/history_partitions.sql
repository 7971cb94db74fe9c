-- Lays out a newly migrated database for bench/history.sh as if it had been
-- partitioned for the :days days before now: the empty partition that
-- migrations 0017 and 0020 made of the old table (<table>_legacy, everything before
-- its cutover) is replaced by one for everything before the week of
-- now − :days and weekly partitions from there to the cutover, so the
-- generated history falls into weekly partitions as a live database's
-- would. Refuses a table whose first partition holds rows.
--
--   psql URL -v days=90 -f bench/history_partitions.sql
\set ON_ERROR_STOP on
SET bench.history_days = :'days';
DO $$
DECLARE
  history text;
  first record;
  origin timestamptz := chopar.history_week_start(
    pg_catalog.now() - pg_catalog.make_interval(days => pg_catalog.current_setting('bench.history_days')::int));
  week timestamptz;
  rows bigint;
BEGIN
  FOREACH history IN ARRAY ARRAY['deliveries', 'sink_messages', 'notifications'] LOOP
    SELECT p.partition, p.upper_bound INTO first
    FROM chopar.history_partitions(pg_catalog.format('chopar.%I', history)::regclass) p
    ORDER BY p.upper_bound LIMIT 1;
    EXECUTE pg_catalog.format('SELECT count(*) FROM %s', first.partition) INTO rows;
    IF rows > 0 OR first.upper_bound <= origin THEN
      RAISE EXCEPTION '% is not a newly migrated table (% rows before %)', history, rows,
        first.upper_bound;
    END IF;
    EXECUTE pg_catalog.format('DROP TABLE %s', first.partition);
    EXECUTE pg_catalog.format('CREATE TABLE chopar.%I PARTITION OF chopar.%I '
                              'FOR VALUES FROM (MINVALUE) TO (%L)', history || '_legacy', history,
                              origin);
    week := origin;
    WHILE week < first.upper_bound LOOP
      EXECUTE pg_catalog.format('CREATE TABLE chopar.%I PARTITION OF chopar.%I '
                                'FOR VALUES FROM (%L) TO (%L)',
                                history || '_p' || pg_catalog.to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD'),
                                history, week, week + interval '168 hours');
      week := week + interval '168 hours';
    END LOOP;
  END LOOP;
END
$$;
