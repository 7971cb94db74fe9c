-- Secrets chopar generates for itself when the configuration sets none
-- ([server] inbox_secret, [channels.sms] callback_secret; docs/
-- configuration.md): one row per secret, created once by whichever process
-- starts first and read by every other, so a worker that signs unsubscribe
-- links and an API process that checks them agree whatever their data_dir.
CREATE TABLE IF NOT EXISTS chopar.generated_secrets (
  name text PRIMARY KEY CHECK (name IN ('inbox_secret', 'sms_callback_secret')),
  value text NOT NULL CHECK (value <> '' AND length(value) <= 4096),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Subscriber tokens v2 carry the user's token generation when they were
-- issued; POST /v1/users/{id}/token/revoke raises it, and every token of an
-- earlier generation is refused (docs/api.md "Authentication"). Catalog-only
-- changes: a constant default rewrites nothing, and the CHECK is NOT VALID
-- (every existing row holds the default, 0; new writes are checked), so no
-- scan of the users table runs under the exclusive lock.
ALTER TABLE chopar.users ADD COLUMN IF NOT EXISTS token_generation bigint NOT NULL DEFAULT 0;
ALTER TABLE chopar.users DROP CONSTRAINT IF EXISTS users_token_generation_check;
ALTER TABLE chopar.users ADD CONSTRAINT users_token_generation_check
  CHECK (token_generation >= 0) NOT VALID;
