-- Deliveries not yet final (queued or being sent), from the partial indexes.
SELECT (SELECT count(*) FROM chopar.deliveries WHERE status = 'queued')
     + (SELECT count(*) FROM chopar.deliveries WHERE status = 'sending') AS depth
