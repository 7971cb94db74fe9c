-- The weekly partitions of table $1 that are missing until $2 (the
-- database's now() when null) plus $3 weeks; returns how many were created.
SELECT chopar.create_history_partitions(
         $1::regclass,
         coalesce($2::timestamptz, pg_catalog.now()) + pg_catalog.make_interval(weeks => $3::int))
       AS created
