-- POST /v1/users/import and `chopar users import`: one batch of users, each
-- element of the arrays one line, no id twice. Each line applies as PUT
-- /v1/users/{id} applies its body (upsert_user.sql): $2 says per line which
-- members change (bits: 1 email, 2 phone, 4 timezone, 8 locale, 16
-- quiet_hours, 32 admin; 64 preferences cleared, 128 data cleared first),
-- the other arrays their values; "preferences" merged as there; "data"
-- ($11) merged by chopar.merged_object, or by a plain || when it holds no
-- null (bit 256 says it does), which merges it the same. Users that exist
-- are updated, the others inserted; `created` and `updated` list them. A
-- line whose data may be over 16,384 bytes once merged (bit 512: the
-- caller's guess from its compact size) is counted on the row this
-- statement's snapshot sees, as the CHECK counts it, and not applied when
-- over: `too_big` names it (one the guess missed meets the CHECK, which
-- fails the batch: the caller then applies its lines one by one).
-- `zone_moved` names the users whose time zone this changed (what follows
-- the zone moves in the same transaction). A user being erased, or one
-- another caller deleted after this statement's snapshot, is neither
-- created nor updated: `again` names it (the caller applies those lines
-- one by one, as PUT does). Lists are ids joined by commas.
-- plan: generic
-- (Planned once: the plan is the same for every batch; EXCEPT rather than
-- NOT IN, whose subplan a plan that guesses ten lines would not hash.)
WITH x AS MATERIALIZED (
  SELECT x.id, x.email, x.phone, x.timezone, x.locale, x.preferences, x.quiet_start,
         x.quiet_end, x.admin, x.data,
         x.flags & 1 <> 0 AS email_set, x.flags & 2 <> 0 AS phone_set,
         x.flags & 4 <> 0 AS timezone_set, x.flags & 8 <> 0 AS locale_set,
         x.flags & 16 <> 0 AS quiet_set, x.flags & 32 <> 0 AS admin_set,
         x.flags & 64 <> 0 AS preferences_clear, x.flags & 128 <> 0 AS data_clear,
         x.flags & 256 <> 0 AS data_has_null,
         o.timezone AS old_timezone, o.erasing,
         CASE WHEN x.flags & 512 <> 0
              THEN octet_length(chopar.merged_object(
                     CASE WHEN x.flags & 128 <> 0 THEN '{}'::jsonb ELSE coalesce(o.data, '{}') END,
                     x.data::jsonb)::text)
              ELSE 0 END AS data_bytes
  FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[],
              $7::text[], $8::text[], $9::text[], $10::boolean[], $11::text[])
    AS x(id, flags, email, phone, timezone, locale, preferences, quiet_start, quiet_end, admin,
         data)
  -- What is stored decides update or insert: a primary-key lookup per line.
  -- OFFSET 0 keeps the planner from making it a join, which, knowing the
  -- batch's size, would scan the whole table for every batch.
  LEFT JOIN LATERAL (SELECT u.timezone, u.erasing, u.data FROM chopar.users u
                     WHERE u.id = x.id OFFSET 0) o ON true
), updated AS (
  UPDATE chopar.users AS u SET
    email       = CASE WHEN x.email_set THEN x.email ELSE u.email END,
    phone       = CASE WHEN x.phone_set THEN x.phone ELSE u.phone END,
    timezone    = CASE WHEN x.timezone_set THEN coalesce(x.timezone, 'UTC') ELSE u.timezone END,
    locale      = CASE WHEN x.locale_set THEN coalesce(x.locale, 'en') ELSE u.locale END,
    preferences = CASE WHEN x.preferences_clear THEN '{}'::jsonb
                       WHEN x.preferences IS NULL THEN u.preferences
                       ELSE jsonb_strip_nulls(u.preferences || x.preferences::jsonb) END,
    quiet_start = CASE WHEN x.quiet_set THEN x.quiet_start::time ELSE u.quiet_start END,
    quiet_end   = CASE WHEN x.quiet_set THEN x.quiet_end::time ELSE u.quiet_end END,
    admin       = CASE WHEN x.admin_set THEN coalesce(x.admin, false) ELSE u.admin END,
    -- Merged into the row as it is now (a change committed since the
    -- snapshot is kept), not into the one `x` read.
    data        = CASE WHEN x.data IS NULL AND NOT x.data_clear THEN u.data
                       WHEN x.data_has_null
                         THEN chopar.merged_object(CASE WHEN x.data_clear THEN '{}'::jsonb
                                                        ELSE u.data END, x.data::jsonb)
                       ELSE CASE WHEN x.data_clear THEN '{}'::jsonb ELSE u.data END
                            || coalesce(x.data::jsonb, '{}') END,
    updated_at  = now()
  FROM x
  WHERE u.id = x.id AND NOT x.erasing AND x.data_bytes <= 16384
  RETURNING u.id, x.timezone_set AND u.timezone <> x.old_timezone AS zone_moved
), inserted AS (
  INSERT INTO chopar.users (id, email, phone, timezone, locale, preferences, quiet_start,
                            quiet_end, admin, data, token_generation)
  SELECT x.id, x.email, x.phone, coalesce(x.timezone, 'UTC'), coalesce(x.locale, 'en'),
         jsonb_strip_nulls(coalesce(x.preferences::jsonb, '{}')), x.quiet_start::time,
         x.quiet_end::time, coalesce(x.admin, false),
         CASE WHEN x.data_has_null THEN chopar.merged_object('{}', x.data::jsonb)
              ELSE coalesce(x.data::jsonb, '{}') END,
         -- As PUT: a user made again after an erasure starts above every
         -- generation the erased user's tokens could carry.
         coalesce((SELECT extract(epoch FROM e.requested_at)::bigint FROM chopar.user_erasures e
                   WHERE e.user_id = x.id), 0)
  FROM x
  -- Another caller's user of the same id inserted since the snapshot fails
  -- the batch (a unique violation): the caller applies it line by line.
  WHERE x.old_timezone IS NULL AND x.data_bytes <= 16384
  RETURNING id
)
SELECT (SELECT string_agg(id::text, ',') FROM inserted) AS created,
       (SELECT string_agg(id::text, ',') FROM updated) AS updated,
       (SELECT string_agg(id::text, ',') FROM updated WHERE zone_moved) AS zone_moved,
       (SELECT string_agg(id::text, ',') FROM x WHERE data_bytes > 16384) AS too_big,
       -- Only when the counts say some line is in neither list.
       CASE WHEN (SELECT count(*) FROM x WHERE data_bytes <= 16384)
                 = (SELECT count(*) FROM updated) + (SELECT count(*) FROM inserted)
            THEN NULL
            ELSE (SELECT string_agg(id::text, ',')
                  FROM (SELECT id FROM x WHERE data_bytes <= 16384
                        EXCEPT SELECT id FROM updated
                        EXCEPT SELECT id FROM inserted) a) END AS again
