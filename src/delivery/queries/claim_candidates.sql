-- plan: generic
-- Locks up to $2 deliveries due at $1 for one claim ($1 NULL: the
-- database's now(), what every host agrees on): first `sending` rows whose
-- lease ran out (their worker died or stalled; send_started says whether it
-- had handed the row to its provider), then `queued` rows by due time:
-- ordinary ones first, then a broadcast's (bulk), so a notification created
-- while the workers are behind a broadcast's pace is not queued behind the
-- broadcast. Rows another claim holds are skipped, never waited for. Each row
-- comes with what the claim decides on (quiet hours, critical, attempts) and
-- what its message needs (content and the address for its channel); an
-- escalated row (unless_read) its notification's read_at. $4, $5, $6 and $7
-- name the channels whose address is a Telegram chat, the push
-- subscriptions, a text in user_addresses, or the mobile devices
-- (core::AddressStore).
-- $8: the horizon of active deliveries the worker knows (delivery/horizon.hpp):
-- no queued or sending row is older, so each lane leaves the weeks before
-- it out at executor start-up. Every row returns the horizon as this
-- statement saw it (`horizon`), so a claim bound by a higher one claims again.
-- The delivery columns come from the locking CTEs, so they are the locked
-- (newest) row versions.
WITH expired AS MATERIALIZED (
  SELECT id, notification_id, user_id, channel, attempts, created_at, true AS reclaimed,
         send_started_at IS NOT NULL AS send_started, unless_read, digest_id
  FROM chopar.deliveries
  WHERE status = 'sending' AND lease_until < coalesce($1::timestamptz, now())
    AND created_at >= $8::timestamptz
    -- Downtime does not count against a lease ($3, in milliseconds): for one
    -- lease after the server began taking writes (started, or was promoted
    -- by a failover: migration 0054), no lease is taken back, so the
    -- heartbeats of sends that outlived the outage can renew theirs first.
    -- A test's simulated time ($1 not NULL) is not comparable with the
    -- server's start and skips this. The subquery runs once per claim.
    AND ($1::timestamptz IS NOT NULL
         OR now() >= (SELECT chopar.primary_since()) + $3::bigint * interval '1 millisecond')
  ORDER BY lease_until
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), due AS MATERIALIZED (
  -- deliveries_due_ordinary: the few queued rows that are not a broadcast's.
  SELECT id, notification_id, user_id, channel, attempts, created_at, false AS reclaimed,
         false AS send_started, unless_read, digest_id
  FROM chopar.deliveries
  WHERE status = 'queued' AND NOT bulk AND next_attempt_at <= coalesce($1::timestamptz, now())
    AND created_at >= $8::timestamptz
  ORDER BY next_attempt_at
  LIMIT greatest($2::int - (SELECT count(*) FROM expired), 0)
  FOR UPDATE SKIP LOCKED
), due_bulk AS MATERIALIZED (
  -- deliveries_due, every queued row: the ordinary ones among the due rows
  -- were taken above, or are held by another claim. LIMIT 0 reads nothing.
  SELECT id, notification_id, user_id, channel, attempts, created_at, false AS reclaimed,
         false AS send_started, unless_read, digest_id
  FROM chopar.deliveries
  WHERE status = 'queued' AND bulk AND next_attempt_at <= coalesce($1::timestamptz, now())
    AND created_at >= $8::timestamptz
  ORDER BY next_attempt_at
  LIMIT greatest($2::int - (SELECT count(*) FROM expired) - (SELECT count(*) FROM due), 0)
  FOR UPDATE SKIP LOCKED
), claimed AS (
  SELECT * FROM expired
  UNION ALL
  SELECT * FROM due
  UNION ALL
  SELECT * FROM due_bulk
)
SELECT c.id, c.notification_id, c.user_id, c.channel, c.attempts, c.reclaimed, c.send_started,
       c.unless_read, CASE WHEN c.unless_read THEN x.read_at::text END AS read_at,
       c.created_at::text AS created_at, coalesce($1::timestamptz, now())::text AS now,
       x.type, coalesce(x.digest ->> 'title', x.title) AS title, coalesce(x.digest ->> 'body', x.body) AS body,
       x.link, x.data::text AS data, x.critical, x.category,
       coalesce(x.digest -> c.channel, x.channel_texts)::text AS channel_texts,
       x.email, x.phone, x.locale, x.timezone,
       x.quiet_start::text AS quiet_start, x.quiet_end::text AS quiet_end,
       CASE WHEN c.channel = ANY($4::text[]) THEN
         (SELECT t.chat_id FROM chopar.telegram_connections t WHERE t.user_id = c.user_id AND t.active)
       END AS telegram_chat_id,
       CASE WHEN c.channel = ANY($5::text[]) THEN
         (SELECT json_agg(json_build_object('id', p.id, 'endpoint', p.endpoint,
                                            'p256dh', p.p256dh, 'auth', p.auth) ORDER BY p.id)
          FROM chopar.push_subscriptions p WHERE p.user_id = c.user_id)::text
       END AS push_targets,
       CASE WHEN c.channel = ANY($6::text[]) THEN
         (SELECT a.address FROM chopar.user_addresses a
          WHERE a.user_id = c.user_id AND a.channel = c.channel)
       END AS address,
       CASE WHEN c.channel = ANY($7::text[]) THEN
         (SELECT json_agg(json_build_object('id', v.id, 'platform', v.platform,
                                            'token', v.token, 'app', v.app) ORDER BY v.id)
          FROM chopar.devices v WHERE v.user_id = c.user_id)::text
       END AS device_targets,
       CASE WHEN c.channel = ANY($7::text[]) THEN x.dedup_key END AS dedup_key,
       (SELECT h.active_from::text FROM chopar.delivery_horizon h) AS horizon
FROM claimed c
-- Two primary-key lookups per claimed row. OFFSET 0 keeps the planner from
-- flattening the subquery into joins: a generic plan, guessing a few dozen
-- rows, would hash the whole users table or merge-join the notifications
-- from their first id on every claim.
CROSS JOIN LATERAL (
  SELECT (n.hit).type, (n.hit).title, (n.hit).body, (n.hit).link, (n.hit).data, (n.hit).critical,
         (n.hit).category, (n.hit).content -> c.channel AS channel_texts, (n.hit).read_at,
         (n.hit).dedup_key,
         -- A digest's delivery (docs/workflows-design.md) says what its
         -- window's rendered content says; no lookup for any other.
         CASE WHEN c.digest_id IS NOT NULL THEN
           (SELECT dg.content FROM chopar.digests dg WHERE dg.id = c.digest_id)
         END AS digest,
         u.email, u.phone, u.locale, u.timezone, u.quiet_start, u.quiet_end
  FROM (
    -- notifications is partitioned by week of created_at and its key is
    -- (id, created_at): by id alone the lookup descends every partition's
    -- key. A delivery is created with its notification's created_at
    -- (insert_notifications.sql, fan_out_batch.sql), so the first branch
    -- finds it in one partition. Only a delivery created later (a digest's,
    -- when its window closes) finds nothing there and falls to the second
    -- branch: LIMIT 1 never starts it otherwise.
    SELECT m AS hit FROM chopar.notifications m
    WHERE m.id = c.notification_id AND m.created_at = c.created_at
    UNION ALL
    SELECT m FROM chopar.notifications m WHERE m.id = c.notification_id
    LIMIT 1
  ) n, chopar.users u
  WHERE u.id = c.user_id
  OFFSET 0
) x
