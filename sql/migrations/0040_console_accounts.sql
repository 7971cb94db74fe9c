-- Console accounts (docs/api.md "Console accounts"): people who sign in to
-- the admin console with an email and a password, each with a role
-- (admin, operator, viewer), and their sessions, which the console carries
-- as the HttpOnly cookie chopar_session.
--
-- A password is kept only as libsodium's crypto_pwhash_str output
-- (Argon2id, "$argon2id$v=19$m=…,t=…,p=…$salt$hash"). An email is unique
-- whatever its case: the unique index is on lower(email), and sign-in looks
-- it up the same way.
CREATE TABLE chopar.console_accounts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email         text NOT NULL CHECK (length(email) BETWEEN 3 AND 254 AND email = btrim(email)
                                     AND position('@' IN email) > 1),
  role          text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%' AND length(password_hash) <= 256),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (updated_at >= created_at)
);
CREATE UNIQUE INDEX console_accounts_email ON chopar.console_accounts (lower(email));

-- A session is known by the SHA-256 of its token (32 random bytes, the
-- cookie's value): the token itself is never stored, so reading this table
-- opens no session. A session of an account goes with the account (ON
-- DELETE CASCADE); a session opened with the bootstrap [server] api_key
-- while no account existed has no account, and keeps the SHA-256 of the
-- key it was opened with instead: it ends when that key is changed.
-- Valid while revoked_at is NULL and expires_at is ahead; last_seen_at is
-- moved at most once a minute.
CREATE TABLE chopar.console_sessions (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash         bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
  csrf_token         text NOT NULL CHECK (length(csrf_token) BETWEEN 32 AND 64),
  account_id         bigint REFERENCES chopar.console_accounts (id) ON DELETE CASCADE,
  bootstrap_key_hash bytea CHECK (length(bootstrap_key_hash) = 32),
  created_at         timestamptz NOT NULL DEFAULT now(),
  last_seen_at       timestamptz NOT NULL DEFAULT now(),
  expires_at         timestamptz NOT NULL,
  revoked_at         timestamptz,
  address            text NOT NULL DEFAULT '' CHECK (length(address) <= 64),
  user_agent         text NOT NULL DEFAULT '' CHECK (length(user_agent) <= 256),
  CHECK ((account_id IS NULL) = (bootstrap_key_hash IS NOT NULL)),
  CHECK (expires_at > created_at),
  CHECK (last_seen_at >= created_at),
  CHECK (revoked_at IS NULL OR revoked_at >= created_at)
);
CREATE INDEX console_sessions_account ON chopar.console_sessions (account_id, created_at);
CREATE INDEX console_sessions_expires ON chopar.console_sessions (expires_at);

-- Failed sign-ins, counted in fixed windows shared by every process on the
-- database: per account email (lower case, whether or not an account has
-- it) and per client address (an IPv4 address or an IPv6 /64). An attempt
-- is counted before its password is checked (so concurrent attempts cannot
-- all pass the check) and taken back when it succeeds. A row whose window
-- has passed counts nothing and is deleted by later failures.
CREATE TABLE chopar.console_sign_in_failures (
  kind              text NOT NULL CHECK (kind IN ('email', 'address')),
  key               text NOT NULL CHECK (length(key) BETWEEN 1 AND 254),
  window_started_at timestamptz NOT NULL,
  failures          integer NOT NULL CHECK (failures >= 0),
  PRIMARY KEY (kind, key)
);
CREATE INDEX console_sign_in_failures_window ON chopar.console_sign_in_failures (window_started_at);

-- The audit log (migration 0039) records what a caller changes here: an
-- account made, its role changed, deleted; a session revoked. Signing in is
-- no caller's change (it has no actor); secrets read "[secret]".
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON chopar.console_accounts
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '')
  EXECUTE FUNCTION chopar.audit_change('console_account', 'id', 'password_hash');
CREATE TRIGGER audit AFTER UPDATE OR DELETE ON chopar.console_sessions
  FOR EACH ROW WHEN (pg_catalog.current_setting('chopar.actor', true) <> '')
  EXECUTE FUNCTION chopar.audit_change('console_session', 'id', 'token_hash', 'csrf_token',
                                       'bootstrap_key_hash');
