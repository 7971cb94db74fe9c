-- A page of a user's inbox, newest first, after the keyset cursor ($2, $3).
SELECT v.doc::text AS doc, (extract(epoch FROM v.created_at) * 1000000)::bigint AS created_micros, v.id
FROM chopar.notifications_api v
WHERE v.user_id = $1 AND (v.created_at, v.id) < (to_timestamp($2::bigint / 1000000.0), $3::bigint)
  -- The row comparison is not used for partition pruning; this bound is.
  AND v.created_at <= to_timestamp($2::bigint / 1000000.0)
ORDER BY v.created_at DESC, v.id DESC
LIMIT $4
