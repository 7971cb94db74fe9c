-- Moves the horizon of active deliveries (migration 0037) past the weeks of
-- chopar.deliveries that ended more than $2 before $1 (NULL: the database's
-- now()) and hold no queued or sending row; returns it ("-infinity" until a
-- week was passed).
SELECT chopar.advance_delivery_horizon(coalesce($1::timestamptz, now()), $2::interval)::text
         AS active_from
