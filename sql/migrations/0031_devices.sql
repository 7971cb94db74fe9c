-- Mobile devices (docs/api.md "Mobile push"): the FCM registration tokens
-- and APNs device tokens a user's apps registered, several a user, the
-- address of the `mobile` channel. A token names one app install, so it
-- belongs to one user at a time (unique): a phone that another user signs
-- in on moves with its token. A small table of its own, like
-- push_subscriptions; a token the push service reports gone is deleted
-- (src/delivery/queries/record_outcomes.sql).
CREATE TABLE chopar.devices (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  platform   text NOT NULL CHECK (platform IN ('android', 'ios', 'web')),
  token      text NOT NULL UNIQUE
             CHECK (token ~ '^[A-Za-z0-9_:.=+/-]+$' AND length(token) BETWEEN 8 AND 4096),
  app        text NOT NULL DEFAULT '' CHECK (app ~ '^[A-Za-z0-9_.-]*$' AND length(app) <= 255),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX devices_user ON chopar.devices (user_id);
