UPDATE chopar.notifications SET read_at = now()
WHERE user_id = $1 AND id = ANY($2::bigint[]) AND read_at IS NULL
