-- What each (user, type) already holds in its throttle window: deliveries
-- of the type sent or being sent, claimed after its `since` (now − the
-- type's window). Runs after lock_claim_keys, as its own statement, so it
-- sees every claim committed before the lock was granted. $1 user ids, $2
-- types, $3 since (parallel arrays); $4: this claim's own taken-back leases,
-- left out because they are being decided again. The user's sent/sending
-- rows come from deliveries_rate; their type from the notification's key.
SELECT x.user_id, x.type,
       (SELECT count(*)
        FROM chopar.deliveries d
        JOIN chopar.notifications n ON n.id = d.notification_id
        WHERE d.user_id = x.user_id AND n.type = x.type
          AND d.status IN ('sent', 'sending') AND d.claimed_at > x.since
          AND d.id <> ALL ($4::bigint[])) AS in_window
FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS x(user_id, type, since)
