-- PUT /v1/users/{id}: create, or merge the fields that were sent ($N_set).
-- $16: "preferences": null was sent, which clears them. $17: the "data"
-- sent (NULL: none), merged by chopar.merged_object; $18: "data": null was
-- sent, which clears it.
INSERT INTO chopar.users AS u (id, email, phone, timezone, locale, preferences, quiet_start, quiet_end, admin, data,
                               token_generation)
VALUES ($1, $3, $5, coalesce($7, 'UTC'), coalesce($9, 'en'),
        jsonb_strip_nulls(coalesce($10::jsonb, '{}')), $12::time, $13::time, coalesce($15::boolean, false),
        chopar.merged_object('{}', $17::jsonb),
        -- A user made again after an erasure starts above every generation
        -- the erased user's tokens could carry (revocations count from 0):
        -- at the erasure's time in seconds.
        coalesce((SELECT extract(epoch FROM e.requested_at)::bigint FROM chopar.user_erasures e
                  WHERE e.user_id = $1), 0))
ON CONFLICT (id) DO UPDATE SET
  email       = CASE WHEN $2::boolean THEN EXCLUDED.email ELSE u.email END,
  phone       = CASE WHEN $4::boolean THEN EXCLUDED.phone ELSE u.phone END,
  timezone    = CASE WHEN $6::boolean THEN EXCLUDED.timezone ELSE u.timezone END,
  locale      = CASE WHEN $8::boolean THEN EXCLUDED.locale ELSE u.locale END,
  preferences = CASE WHEN $16::boolean THEN '{}'::jsonb
                     WHEN $10::jsonb IS NULL THEN u.preferences
                     ELSE jsonb_strip_nulls(u.preferences || $10::jsonb) END,
  quiet_start = CASE WHEN $11::boolean THEN EXCLUDED.quiet_start ELSE u.quiet_start END,
  quiet_end   = CASE WHEN $11::boolean THEN EXCLUDED.quiet_end ELSE u.quiet_end END,
  admin       = CASE WHEN $14::boolean THEN EXCLUDED.admin ELSE u.admin END,
  data        = chopar.merged_object(CASE WHEN $18::boolean THEN '{}'::jsonb ELSE u.data END, $17::jsonb),
  updated_at  = now()
RETURNING id, (xmax = 0) AS inserted
