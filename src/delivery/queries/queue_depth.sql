-- plan: generic
-- Deliveries not yet final (queued or being sent), from the partial indexes
-- (deliveries_due, deliveries_leased); planned by index (db::Plan::kGeneric),
-- so a plan made while a partition was empty does not read the whole
-- partition once a broadcast filled it.
SELECT (SELECT count(*) FROM chopar.deliveries WHERE status = 'queued')
     + (SELECT count(*) FROM chopar.deliveries WHERE status = 'sending') AS depth
