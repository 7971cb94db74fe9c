-- Broadcast $1 (no row: unknown): the columns broadcast::ReadBroadcast
-- reads. `stopped_*`: what the walk after a cancel has stopped so far;
-- `stopping`: the walk goes on.
SELECT b.id, b.topic, b.audience, b.audience_where::text AS audience_where, b.status, b.recipients, b.created, b.dedup_key,
       b.created_at::text AS created_at, b.finished_at::text AS finished_at,
       b.stopped_deliveries, b.stopped_delayed, b.stopped_digest_items,
       b.cancel_cursor IS NOT NULL AS stopping
FROM chopar.broadcasts b
WHERE b.id = $1
