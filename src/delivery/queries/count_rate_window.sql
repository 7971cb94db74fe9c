-- plan: generic
-- What each (user, channel) already holds in the sliding hour: deliveries
-- sent or being sent, claimed after $3 (now − 1 hour). Runs after
-- lock_claim_keys, as its own statement, so it sees every claim committed
-- before the lock was granted. $4: this claim's own taken-back leases, left
-- out because they are being decided again.
-- `deliveries` is partitioned by created_at, the bound is on claimed_at: the
-- count is split at the week of $3 so it does not probe every partition.
-- Rows created since then: deliveries_rate in this week's partitions only
-- (pruned by the created_at bound). Older rows claimed within the hour were
-- claimed after their own week had ended, so deliveries_claimed_late holds
-- them (sql/migrations/0021_late_claims_index.sql): one small probe per
-- older partition for the whole statement, not per pair.
WITH late AS MATERIALIZED (
  SELECT d.user_id, d.channel, count(*) AS n
  FROM chopar.deliveries d
  WHERE d.user_id = ANY ($1::bigint[])
    AND d.status IN ('sent', 'sending')
    AND d.claimed_at AT TIME ZONE 'UTC' >= date_trunc('week', d.created_at AT TIME ZONE 'UTC') + interval '7 days'
    AND d.claimed_at > $3::timestamptz
    AND d.created_at < chopar.history_week_start($3::timestamptz)
    AND d.id <> ALL ($4::bigint[])
  GROUP BY d.user_id, d.channel
)
SELECT x.user_id, x.channel,
       (SELECT count(*)
        FROM chopar.deliveries d
        WHERE d.user_id = x.user_id AND d.channel = x.channel
          AND d.status IN ('sent', 'sending') AND d.claimed_at > $3::timestamptz
          AND d.created_at >= chopar.history_week_start($3::timestamptz)
          AND d.id <> ALL ($4::bigint[]))
       + coalesce((SELECT l.n FROM late l WHERE l.user_id = x.user_id AND l.channel = x.channel), 0)
         AS in_window
FROM unnest($1::bigint[], $2::text[]) AS x(user_id, channel)
