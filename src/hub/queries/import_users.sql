-- POST /v1/users/import and `chopar users import`: one batch of users, each
-- element of the arrays one line, no id twice. Each line applies as PUT
-- /v1/users/{id} applies its body (upsert_user.sql): per member whether it
-- changes ($N_set) and its value; "preferences" merged as there; "data"
-- merged by chopar.merged_object ($17; $18: cleared first). Users that exist
-- are updated, the others inserted. `zone_moved` names the users whose time
-- zone this changed (what follows the zone moves in the same transaction).
-- A user being erased, or one another caller inserted or deleted after
-- this statement's snapshot, is neither: `again` names them (the caller
-- applies those lines one by one, as PUT does). Lists are ids joined by
-- commas.
WITH x AS (
  SELECT x.*, o.timezone AS old_timezone, o.erasing
  FROM unnest($1::bigint[], $2::boolean[], $3::text[], $4::boolean[], $5::text[],
              $6::boolean[], $7::text[], $8::boolean[], $9::text[], $10::text[],
              $11::boolean[], $12::text[], $13::text[], $14::boolean[], $15::boolean[],
              $16::boolean[], $17::text[], $18::boolean[])
    AS x(id, email_set, email, phone_set, phone, timezone_set, timezone, locale_set, locale,
         preferences, quiet_set, quiet_start, quiet_end, admin_set, admin, preferences_clear,
         data, data_clear)
  -- A primary-key lookup per line: what is stored decides update or insert.
  LEFT JOIN chopar.users o ON o.id = x.id
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
    data        = chopar.merged_object(CASE WHEN x.data_clear THEN '{}'::jsonb ELSE u.data END,
                                       x.data::jsonb),
    updated_at  = now()
  FROM x
  WHERE u.id = x.id AND NOT x.erasing
  RETURNING u.id, x.timezone_set AND u.timezone <> x.old_timezone AS zone_moved
), inserted AS (
  INSERT INTO chopar.users (id, email, phone, timezone, locale, preferences, quiet_start,
                            quiet_end, admin, data)
  SELECT x.id, x.email, x.phone, coalesce(x.timezone, 'UTC'), coalesce(x.locale, 'en'),
         jsonb_strip_nulls(coalesce(x.preferences::jsonb, '{}')), x.quiet_start::time,
         x.quiet_end::time, coalesce(x.admin, false), chopar.merged_object('{}', x.data::jsonb)
  FROM x
  WHERE x.old_timezone IS NULL
  ON CONFLICT (id) DO NOTHING
  RETURNING id
)
SELECT (SELECT count(*) FROM updated) AS updated,
       (SELECT count(*) FROM inserted) AS created,
       (SELECT string_agg(id::text, ',') FROM updated WHERE zone_moved) AS zone_moved,
       (SELECT string_agg(x.id::text, ',') FROM x
        WHERE x.id NOT IN (SELECT id FROM updated) AND x.id NOT IN (SELECT id FROM inserted))
         AS again
