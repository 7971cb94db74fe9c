-- plan: generic
-- Creates a batch of notifications and their deliveries in one statement,
-- and queues the NOTIFYs that wake delivery workers and the inbox streams of
-- the users who got something (sent at COMMIT). The input is parallel
-- arrays, one element per row: $1 idx int[], $2 user_id bigint[], $3 type,
-- $4 title, $5 body, $6 link, $7 data (JSON text), $8 dedup_key (text[]),
-- $9 critical boolean[], $10 channels (comma-separated names, text[]);
-- $11: now; $12 ids drawn beforehand (bigint[]: empty, or NULL where none
-- was), $13 category (text[]), $14 content (each channel's rendered texts, jsonb[]: a channel holding {"error": …} gets a failed delivery with
-- that reason), $15 held (escalate-if-unread: comma-separated channels
-- whose deliveries wait, NULL for none), $16 held_until (when they are due,
-- timestamptz[]), $17 cancellation_key (text[]), $18 for a broadcast's
-- batch, when its deliveries not held fall due (it paces its batches); they
-- are bulk, claimed after the ordinary deliveries that are due. NULL for any
-- other notification: due at $11. $19 tenant (text[]; NULL when no row has
-- one), $20 actions (jsonb[]; NULL when no row has any), $21 tags (each
-- row's tags joined by commas, text[]; NULL when no row has any), $22
-- workflow (jsonb[]; NULL when no row has one): a row of a type with
-- workflow steps gets its workflow run, where the steps done at notify left
-- it ({"channels": comma-separated or '*' for every channel, "step",
-- "status", "due_at" (a delay's, else null: due with its deliveries),
-- "outcomes"}); its `channels` are the deliveries those steps sent. The
-- advancers are woken when a run is active. Arrays,
-- not a JSON document: parsing them is cheaper, and ids not drawn
-- beforehand are drawn here, in input order, so no separate round trip
-- reserves them.
-- Returns one row per input: whether it was created, and the id (the
-- existing one for a repeated dedup key; NULL when the duplicate is another
-- row of this same batch).
WITH input AS MATERIALIZED (
  SELECT x.*, coalesce(x.drawn_id, nextval(pg_get_serial_sequence('chopar.notifications', 'id'))) AS id
  FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[],
              $8::text[], $9::boolean[], $10::text[], $12::bigint[], $13::text[], $14::jsonb[],
              $15::text[], $16::timestamptz[], $17::text[], $19::text[], $20::jsonb[], $21::text[],
              $22::jsonb[])
    AS x(idx, user_id, type, title, body, link, data, dedup_key, critical, channels, drawn_id, category,
         content, held, held_until, cancellation_key, tenant, actions, tags, workflow)
), keyed AS (
  -- notification_dedup is the only arbiter of a key: a concurrent insert of
  -- the same key waits on its primary key, then does nothing.
  INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at)
  SELECT user_id, dedup_key, id, $11::timestamptz
  FROM input
  WHERE dedup_key IS NOT NULL
  ORDER BY idx
  ON CONFLICT (user_id, dedup_key) DO NOTHING
  RETURNING notification_id
), inserted AS (
  -- Rows without a key, whose key was just recorded, or whose key a delayed
  -- notification reserved with this very id (its release).
  INSERT INTO chopar.notifications (id, user_id, type, title, body, link, data, dedup_key, critical, created_at,
                             category, content, cancellation_key, tenant, actions, tags)
  OVERRIDING SYSTEM VALUE
  SELECT i.id, i.user_id, i.type, i.title, i.body, i.link, i.data, i.dedup_key, i.critical, $11::timestamptz,
         i.category, i.content, i.cancellation_key, i.tenant, i.actions, string_to_array(i.tags, ',')
  FROM input i
  WHERE i.dedup_key IS NULL
     OR i.id IN (SELECT k.notification_id FROM keyed k)
     OR (i.drawn_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM chopar.notification_dedup r
                     WHERE r.user_id = i.user_id AND r.dedup_key = i.dedup_key
                       AND r.notification_id = i.drawn_id))
  ORDER BY i.idx
  RETURNING id, user_id
), queued AS (
  INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, last_error, next_attempt_at, created_at,
                                 updated_at, unless_read, bulk)
  SELECT i.id, i.user_id, c.channel,
         CASE WHEN i.content -> c.channel ? 'error' THEN 'failed' ELSE 'queued' END,
         i.content -> c.channel ->> 'error',
         CASE WHEN h.held THEN i.held_until ELSE coalesce($18::timestamptz, $11::timestamptz) END, $11::timestamptz, $11::timestamptz,
         h.held, $18::timestamptz IS NOT NULL
  FROM inserted n
  JOIN input i ON i.id = n.id
  CROSS JOIN LATERAL unnest(string_to_array(i.channels, ',')) AS c(channel)
  CROSS JOIN LATERAL (SELECT coalesce(c.channel = ANY (string_to_array(i.held, ',')), false) AS held) h
  RETURNING 1
), runs AS (
  INSERT INTO chopar.workflow_runs (notification_id, notification_created_at, user_id, type, tenant,
                                    channels, step, status, due_at, outcomes, created_at,
                                    updated_at)
  SELECT i.id, $11::timestamptz, i.user_id, i.type, i.tenant,
         CASE WHEN i.workflow ->> 'channels' <> '*'
              THEN string_to_array(i.workflow ->> 'channels', ',') END,
         (i.workflow ->> 'step')::int, i.workflow ->> 'status',
         CASE WHEN i.workflow ->> 'status' = 'active' THEN
           coalesce((i.workflow ->> 'due_at')::timestamptz, $18::timestamptz, $11::timestamptz)
         END,
         i.workflow -> 'outcomes', $11::timestamptz, $11::timestamptz
  FROM inserted n
  JOIN input i ON i.id = n.id
  WHERE i.workflow IS NOT NULL
  RETURNING status
), runs_woken AS (
  SELECT pg_notify('chopar_workflows', '') WHERE EXISTS (SELECT 1 FROM runs WHERE status = 'active')
), woken AS (
  -- NOTIFY payloads are limited to 8000 bytes; a large batch wakes the
  -- streams of its range of user ids (a broadcast's batch is such a range).
  SELECT pg_notify('chopar_deliveries', ''),
         pg_notify('chopar_inbox',
                   CASE WHEN length(u.users) > 7000 THEN u.low || '-' || u.high ELSE u.users END)
  FROM (SELECT string_agg(DISTINCT user_id::text, ',') AS users, min(user_id) AS low,
               max(user_id) AS high
        FROM inserted) u
  WHERE u.users IS NOT NULL
)
-- The id a repeated key stands for is looked up only for rows not inserted,
-- one probe of notification_dedup's primary key.
SELECT i.idx, n.id IS NOT NULL AS created,
       coalesce(n.id, (SELECT e.notification_id FROM chopar.notification_dedup e
                       WHERE e.user_id = i.user_id AND e.dedup_key = i.dedup_key)) AS id,
       (SELECT count(*) FROM queued) AS deliveries,
       (SELECT count(*) FROM woken) AS woken, (SELECT count(*) FROM runs_woken) AS runs_woken
FROM input i
LEFT JOIN inserted n ON n.id = i.id
ORDER BY i.idx
