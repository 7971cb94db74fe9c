-- Deliveries newest first with optional filters; $5 is the keyset cursor (an id).
SELECT v.doc::text AS doc, v.id
FROM chopar.deliveries_api v
WHERE ($1::text IS NULL OR v.status = $1)
  AND ($2::text IS NULL OR v.channel = $2)
  AND ($3::bigint IS NULL OR v.user_id = $3)
  AND v.id < $5
ORDER BY v.id DESC
LIMIT $4
