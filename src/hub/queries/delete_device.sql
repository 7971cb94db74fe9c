DELETE FROM chopar.devices WHERE id = $2 AND user_id = $1
