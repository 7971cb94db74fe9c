-- Deletes released delayed notifications ($1: their ids), in the
-- transaction that created their notifications.
DELETE FROM chopar.delayed_notifications WHERE id = ANY ($1::bigint[])
