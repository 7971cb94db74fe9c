-- One process at a time maintains the partitions (held until the
-- transaction ends); the others wait, then find the work done.
SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('chopar.history_partitions'))
