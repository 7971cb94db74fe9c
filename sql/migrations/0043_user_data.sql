-- migrate: no transaction
-- A user's custom attributes (docs/api.md "The user object", `data`): a
-- JSON object of at most 16 KB, shown to templates as {{user.data.*}} and
-- matched by a broadcast's `where` with `data @> where`, which the GIN
-- index (jsonb_path_ops: containment only, smaller than the default
-- operator class) answers. The column's default is a constant: adding it
-- rewrites nothing. Its CHECK is added NOT VALID, then validated without
-- holding writes back. The audit trigger of users (migration 0039) records
-- the whole row, so a change of `data` is audited like any other column.
-- Every statement may run again (a failed concurrent build is dropped
-- first).
ALTER TABLE chopar.users ADD COLUMN IF NOT EXISTS data jsonb NOT NULL DEFAULT '{}';
DO $$
BEGIN
  ALTER TABLE chopar.users DROP CONSTRAINT IF EXISTS users_data_check;
  ALTER TABLE chopar.users ADD CONSTRAINT users_data_check
    CHECK (jsonb_typeof(data) = 'object' AND octet_length(data::text) <= 16384) NOT VALID;
END
$$;
ALTER TABLE chopar.users VALIDATE CONSTRAINT users_data_check;
DROP INDEX CONCURRENTLY IF EXISTS chopar.users_data;
CREATE INDEX CONCURRENTLY users_data ON chopar.users USING gin (data jsonb_path_ops);

-- `base` with `patch` merged key by key at the top level, a key whose value
-- in `patch` is null removed (nested objects are replaced, not merged);
-- `base` as it is when `patch` is NULL. What PUT /v1/users/{id} and
-- POST /v1/users/import do to `data`.
CREATE OR REPLACE FUNCTION chopar.merged_object(base jsonb, patch jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN patch IS NULL THEN base
              ELSE (base || patch) - ARRAY(SELECT e.key FROM jsonb_each(patch) AS e
                                           WHERE e.value = 'null'::jsonb) END
$$;

-- A broadcast's audience filter (POST /v1/broadcasts "where"): only the
-- users whose data contains this object; NULL: everyone of the audience.
-- The API refuses one whose compact JSON is over 4096 bytes; the stored
-- text form spaces its members, so the bound here is a backstop above it.
ALTER TABLE chopar.broadcasts ADD COLUMN IF NOT EXISTS audience_where jsonb;
DO $$
BEGIN
  ALTER TABLE chopar.broadcasts DROP CONSTRAINT IF EXISTS broadcasts_audience_where_check;
  ALTER TABLE chopar.broadcasts ADD CONSTRAINT broadcasts_audience_where_check
    CHECK (audience_where IS NULL
           OR (jsonb_typeof(audience_where) = 'object' AND octet_length(audience_where::text) <= 8192))
    NOT VALID;
END
$$;
ALTER TABLE chopar.broadcasts VALIDATE CONSTRAINT broadcasts_audience_where_check;
