-- PUT /v1/inbox/preferences: merges $2 (a JSON object) into a user's
-- preferences key by key, a null removing the key, as PUT /v1/users/{id}
-- does. Returns the preferences, or nothing when the user does not exist.
UPDATE chopar.users
SET preferences = jsonb_strip_nulls(preferences || $2::jsonb), updated_at = now()
WHERE id = $1
RETURNING preferences::text AS preferences
