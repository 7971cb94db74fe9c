-- What each (user, channel) already holds in the sliding hour: deliveries
-- sent or being sent, claimed after $3 (now − 1 hour). Runs after
-- lock_claim_keys, as its own statement, so it sees every claim committed
-- before the lock was granted. $4: this claim's own taken-back leases, left
-- out because they are being decided again. Served by deliveries_rate.
SELECT x.user_id, x.channel,
       (SELECT count(*)
        FROM chopar.deliveries d
        WHERE d.user_id = x.user_id AND d.channel = x.channel
          AND d.status IN ('sent', 'sending') AND d.claimed_at > $3::timestamptz
          AND d.id <> ALL ($4::bigint[])) AS in_window
FROM unnest($1::bigint[], $2::text[]) AS x(user_id, channel)
