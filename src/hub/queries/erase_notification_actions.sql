-- An erasure's batch: up to $2 recorded action presses of user $1.
DELETE FROM chopar.notification_actions
WHERE (notification_id, action_index) IN (SELECT notification_id, action_index
                                          FROM chopar.notification_actions
                                          WHERE user_id = $1 LIMIT $2)
