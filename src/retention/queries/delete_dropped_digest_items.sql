-- Before retention drops the partitions of notifications older than $2
-- days before $1 (the database's now() when null): the items of closed
-- digests opened before the newest of those partitions ends. An item's
-- notification was created while its digest was open, so every item naming
-- a notification about to go is among them (a digest stays open at most
-- the longest digest window, 7 days, and notifications_days is more than
-- that). Items of a closed digest are history only: its deliveries are made.
DELETE FROM chopar.digest_items i
USING chopar.digests d
WHERE d.id = i.digest_id AND d.status <> 'open'
  AND d.opened_at < (SELECT max(p.upper_bound)
                     FROM chopar.history_partitions('chopar.notifications'::regclass) p
                     WHERE p.upper_bound <= coalesce($1::timestamptz, pg_catalog.now())
                                              - pg_catalog.make_interval(days => $2::int))
RETURNING 1
