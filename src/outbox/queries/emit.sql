-- chopar.emit(type, user_id, payload) in the caller's transaction.
SELECT chopar.emit($1, $2::bigint, $3::jsonb)
