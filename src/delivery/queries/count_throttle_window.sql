-- plan: generic
-- What each (user, type) already holds in its throttle window: deliveries
-- of the type sent or being sent, claimed after its `since` (now − the
-- type's window). Runs after lock_claim_keys, as its own statement, so it
-- sees every claim committed before the lock was granted. $1 user ids, $2
-- types, $3 since (parallel arrays); $4: this claim's own taken-back leases,
-- left out because they are being decided again.
-- `deliveries` is partitioned by created_at, the bound is on claimed_at: as
-- in count_rate_window.sql the count is split at the week of each `since`.
-- Rows created since then: the user's deliveries_rate entries in those
-- partitions only (pruned by the created_at bound). Older rows claimed
-- within the window were claimed after their own week had ended, so
-- deliveries_claimed_late holds them (sql/migrations/0021_late_claims_index.sql):
-- one small probe per older partition for the whole statement, not per key.
-- The type is the notification's, looked up in its own partition first (as
-- in claim_candidates.sql).
WITH input AS MATERIALIZED (
  SELECT x.user_id, x.type, x.since, chopar.history_week_start(x.since) AS week
  FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS x(user_id, type, since)
), late AS MATERIALIZED (
  SELECT d.user_id, d.notification_id, d.created_at, d.claimed_at
  FROM chopar.deliveries d
  WHERE d.user_id = ANY ($1::bigint[])
    AND d.status IN ('sent', 'sending')
    AND d.claimed_at AT TIME ZONE 'UTC' >= date_trunc('week', d.created_at AT TIME ZONE 'UTC') + interval '7 days'
    AND d.claimed_at > (SELECT min(i.since) FROM input i)
    AND d.id <> ALL ($4::bigint[])
)
SELECT x.user_id, x.type,
       (SELECT count(*)
        FROM (SELECT d.notification_id, d.created_at
              FROM chopar.deliveries d
              WHERE d.user_id = x.user_id
                AND d.status IN ('sent', 'sending') AND d.claimed_at > x.since
                AND d.created_at >= x.week
                AND d.id <> ALL ($4::bigint[])
              UNION ALL
              SELECT l.notification_id, l.created_at
              FROM late l
              WHERE l.user_id = x.user_id AND l.claimed_at > x.since AND l.created_at < x.week) w
        WHERE x.type = (SELECT t.type
                        FROM (SELECT m.type FROM chopar.notifications m
                              WHERE m.id = w.notification_id AND m.created_at = w.created_at
                              UNION ALL
                              SELECT m.type FROM chopar.notifications m
                              WHERE m.id = w.notification_id
                              LIMIT 1) t)) AS in_window
FROM input x
