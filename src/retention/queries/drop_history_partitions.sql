-- Drops the partitions of table $1 whose rows are all older than $3 days
-- before $2 (the database's now() when null); one row per partition dropped.
SELECT chopar.drop_history_partitions(
         $1::regclass,
         coalesce($2::timestamptz, pg_catalog.now()) - pg_catalog.make_interval(days => $3::int))
       AS dropped
