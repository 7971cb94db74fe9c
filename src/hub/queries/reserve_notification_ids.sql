-- Ids for a batch, taken up front so each input row can be matched to its insert.
SELECT nextval(pg_get_serial_sequence('chopar.notifications', 'id'))
FROM generate_series(1, $1::int)
