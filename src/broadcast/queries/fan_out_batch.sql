-- One fan-out batch of a broadcast whose notification has no template, set
-- based: the next $3 recipients after user id $2 (NULL: from the start) —
-- subscribers of topic $1, or every user when $1 is NULL — in user id order,
-- their notifications (the same type $4, title $5, body $6, link $7, data $8
-- (jsonb), category $9, critical $10, cancellation key $11, actions $24
-- (jsonb) and tags $25 (text[]) for all, dedup key $12 per recipient) and one delivery per channel chosen for each, queued
-- at $14 (the batch's due time) as a broadcast's (bulk: claimed after the
-- ordinary deliveries that are due); created_at $13. The channels are chosen
-- here as hub::ChooseChannels chooses them (hub/channel_choice.hpp): of the
-- requested $15 (text[] in the order of core::AllChannels()), those the
-- user can be reached on (an email address for the channels of $17, a phone
-- number for $18, an active Telegram chat for $19, a push subscription for
-- $20, a mobile device for $22, else the channel's own row in user_addresses) and, unless critical,
-- wants for this type and category — the most specific boolean among
-- types[T][C], types[T], categories[K][C], categories[K], the channel's own
-- preference, else the channel's default (on for the channels of $21). A recipient that already has the dedup key (a repeated batch)
-- gets nothing new. With $23 (a broadcast's "where") only the users whose
-- data contains it are walked. Queues one NOTIFY for the inbox streams of the batch's
-- range of users and, when $16 is true (the deliveries are due at once), one
-- for the delivery workers (sent at COMMIT).
-- Returns the recipients walked, the last one's id (NULL: none), the
-- notifications and the deliveries created.
WITH walked AS MATERIALIZED (
  (SELECT s.user_id
   FROM chopar.topic_subscribers s
   -- A range scan of the primary key (topic, user_id), whatever the
   -- planner guesses of the topic's share of the subscriptions.
   WHERE $1::text IS NOT NULL AND s.topic = $1
     AND (s.topic, s.user_id) > ($1, coalesce($2::bigint, -9223372036854775808))
     -- A user being erased is walked past (docs/privacy.md).
     AND NOT EXISTS (SELECT 1 FROM chopar.users e WHERE e.id = s.user_id AND e.erasing)
     AND ($23::jsonb IS NULL
          OR EXISTS (SELECT 1 FROM chopar.users f WHERE f.id = s.user_id AND f.data @> $23::jsonb))
   ORDER BY s.topic, s.user_id
   LIMIT $3::int)
  UNION ALL
  (SELECT u.id
   FROM chopar.users u
   WHERE $1::text IS NULL AND u.id > coalesce($2::bigint, -9223372036854775808) AND NOT u.erasing
     AND ($23::jsonb IS NULL OR u.data @> $23::jsonb)
   ORDER BY u.id
   LIMIT $3::int)
), keyed AS (
  -- notification_dedup is the arbiter of a key: the id is drawn with it.
  INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
  SELECT w.user_id, $12::text, nextval(pg_get_serial_sequence('chopar.notifications', 'id')),
         $13::timestamptz
  FROM walked w
  WHERE $12::text IS NOT NULL
  ORDER BY w.user_id
  ON CONFLICT (user_id, dedup_key) DO NOTHING
  RETURNING user_id, notification_id
), inserted AS (
  INSERT INTO chopar.notifications (id, user_id, type, title, body, link, data, dedup_key, critical,
                                    created_at, category, cancellation_key, actions, tags)
  OVERRIDING SYSTEM VALUE
  SELECT coalesce(k.notification_id, nextval(pg_get_serial_sequence('chopar.notifications', 'id'))),
         w.user_id, $4::text, $5::text, $6::text, $7::text, $8::jsonb, $12::text, $10::boolean,
         $13::timestamptz, $9::text, $11::text, $24::jsonb, $25::text[]
  FROM walked w
  LEFT JOIN keyed k ON k.user_id = w.user_id
  WHERE $12::text IS NULL OR k.user_id IS NOT NULL
  ORDER BY w.user_id
  RETURNING id, user_id
), queued AS (
  INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, next_attempt_at,
                                 created_at, updated_at, bulk)
  SELECT n.id, n.user_id, c.channel, 'queued', $14::timestamptz, $13::timestamptz,
         $13::timestamptz, true
  FROM inserted n
  -- A primary-key lookup per recipient. OFFSET 0 keeps the planner from
  -- flattening it into a join: a generic plan, guessing thousands of rows,
  -- would hash the whole users table for every batch.
  CROSS JOIN LATERAL (SELECT u.id, u.email, u.phone, u.preferences
                      FROM chopar.users u WHERE u.id = n.user_id OFFSET 0) u
  CROSS JOIN LATERAL unnest($15::text[]) WITH ORDINALITY AS c(channel, rank)
  WHERE CASE
          WHEN c.channel = ANY($17::text[]) THEN u.email IS NOT NULL
          WHEN c.channel = ANY($18::text[]) THEN u.phone IS NOT NULL
          WHEN c.channel = ANY($19::text[]) THEN EXISTS (SELECT 1 FROM chopar.telegram_connections t
                                                         WHERE t.user_id = u.id AND t.active)
          WHEN c.channel = ANY($20::text[]) THEN EXISTS (SELECT 1 FROM chopar.push_subscriptions p
                                                         WHERE p.user_id = u.id)
          WHEN c.channel = ANY($22::text[]) THEN EXISTS (SELECT 1 FROM chopar.devices v
                                                         WHERE v.user_id = u.id)
          ELSE EXISTS (SELECT 1 FROM chopar.user_addresses a
                       WHERE a.user_id = u.id AND a.channel = c.channel)
        END
    AND ($10::boolean OR CASE
          WHEN jsonb_typeof(u.preferences -> 'types' -> $4::text -> c.channel) = 'boolean'
            THEN (u.preferences -> 'types' -> $4::text -> c.channel)::boolean
          WHEN jsonb_typeof(u.preferences -> 'types' -> $4::text) = 'boolean'
            THEN (u.preferences -> 'types' -> $4::text)::boolean
          WHEN jsonb_typeof(u.preferences -> 'categories' -> $9::text -> c.channel) = 'boolean'
            THEN (u.preferences -> 'categories' -> $9::text -> c.channel)::boolean
          WHEN jsonb_typeof(u.preferences -> 'categories' -> $9::text) = 'boolean'
            THEN (u.preferences -> 'categories' -> $9::text)::boolean
          WHEN jsonb_typeof(u.preferences -> c.channel) = 'boolean'
            THEN (u.preferences -> c.channel)::boolean
          ELSE c.channel = ANY($21::text[])
        END)
  ORDER BY n.id, c.rank
  RETURNING 1
), woken AS (
  SELECT CASE WHEN $16::boolean THEN pg_notify('chopar_deliveries', '') END,
         pg_notify('chopar_inbox', u.low || '-' || u.high)
  FROM (SELECT min(user_id) AS low, max(user_id) AS high FROM inserted) u
  WHERE u.low IS NOT NULL
)
SELECT (SELECT count(*) FROM walked) AS recipients,
       (SELECT max(user_id) FROM walked) AS last_user_id,
       (SELECT count(*) FROM inserted) AS created,
       (SELECT count(*) FROM queued) AS deliveries,
       (SELECT count(*) FROM woken) AS woken
