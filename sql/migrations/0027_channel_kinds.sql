-- The channel kinds the database accepts, generated from the binaries'
-- registries (src/core/channel_kind.hpp) instead of a list written into
-- each CHECK: chopar.channel_kinds holds every kind a process has
-- registered (db::RegisterChannelKinds adds its own at every start) and
-- chopar.known_channel / known_channels are regenerated from it when one
-- is added. They are declared IMMUTABLE so a CHECK may call them; the set
-- only ever grows, so no row a CHECK once accepted would be refused by it.
CREATE TABLE IF NOT EXISTS chopar.channel_kinds (
  name          text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_]{0,31}$'),
  registered_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO chopar.channel_kinds (name)
VALUES ('email'), ('telegram'), ('push'), ('sms')
ON CONFLICT (name) DO NOTHING;

CREATE OR REPLACE FUNCTION chopar.known_channel(name text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT name = ANY ('{email,push,sms,telegram}'::text[]) $$;
CREATE OR REPLACE FUNCTION chopar.known_channels(names text[]) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT names <@ '{email,push,sms,telegram}'::text[] $$;

-- NOT VALID and not validated here: every row passed the old CHECK, which
-- accepted a subset of what the new one does, so a scan (under the lock
-- ADD CONSTRAINT holds) would prove nothing. New rows are checked.
ALTER TABLE chopar.deliveries
  DROP CONSTRAINT IF EXISTS deliveries_channel_check,
  ADD CONSTRAINT deliveries_channel_known CHECK (chopar.known_channel(channel)) NOT VALID;
ALTER TABLE chopar.sink_messages
  DROP CONSTRAINT IF EXISTS sink_messages_channel_check,
  ADD CONSTRAINT sink_messages_channel_known CHECK (chopar.known_channel(channel)) NOT VALID;
ALTER TABLE chopar.schedules
  DROP CONSTRAINT IF EXISTS schedules_channels_check,
  ADD CONSTRAINT schedules_channels_known
    CHECK (channels IS NULL OR chopar.known_channels(channels)) NOT VALID;
ALTER TABLE chopar.digest_items
  DROP CONSTRAINT IF EXISTS digest_items_channels_check,
  ADD CONSTRAINT digest_items_channels_known
    CHECK (cardinality(channels) >= 1 AND chopar.known_channels(channels)) NOT VALID;

-- The address of a user on a registered channel whose address type has no
-- column or table of its own (core::AddressStore::kUser): PUT
-- /v1/users/{id} "addresses" sets it. One per user and channel.
CREATE TABLE IF NOT EXISTS chopar.user_addresses (
  user_id    bigint NOT NULL REFERENCES chopar.users ON DELETE CASCADE,
  channel    text NOT NULL CHECK (chopar.known_channel(channel)),
  address    text NOT NULL CHECK (length(address) BETWEEN 1 AND 2048
                                  AND address !~ '[\x01-\x1f\x7f]'),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, channel)
);
