-- An erasure's batch (hub::UserEraser): up to $2 delayed notifications of
-- user $1 (first, so nothing is released for the user meanwhile).
DELETE FROM chopar.delayed_notifications
WHERE id IN (SELECT id FROM chopar.delayed_notifications WHERE user_id = $1 LIMIT $2)
