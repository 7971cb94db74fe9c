-- One delivery as GET /v1/deliveries shows it.
SELECT doc::text AS doc FROM chopar.deliveries_api WHERE id = $1
