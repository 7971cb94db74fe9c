-- Deletes the suppression of address $2 on channel $1; returns its id.
DELETE FROM chopar.suppressions WHERE channel = $1 AND address = $2 RETURNING id
