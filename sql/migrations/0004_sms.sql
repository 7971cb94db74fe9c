-- SMS through Eskiz: delivery reports, the marker of a send whose outcome is
-- unknown, and the provider's login token shared by every worker.

ALTER TABLE chopar.deliveries
  -- The provider's final delivery report (Eskiz callback or status_by_id).
  -- Set once: a repeated or late report does not change it.
  ADD COLUMN provider_status text
    CHECK (provider_status IN ('DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED')),
  -- True from just before a request to a non-idempotent provider (an SMS
  -- send) may be written until its answer is recorded. Still true later
  -- means the provider may have sent it: the channel does not send it again
  -- blindly (see src/channels/eskiz_channel.hpp).
  ADD COLUMN outcome_unknown boolean NOT NULL DEFAULT false;

-- Delivery reports find their delivery by the provider's id.
CREATE INDEX deliveries_sms_provider_message ON chopar.deliveries (provider_message_id)
  WHERE channel = 'sms' AND provider_message_id IS NOT NULL;

-- A provider's API token (Eskiz: the bearer token of /api/auth/login), so
-- every worker process uses one token and a refresh by one is seen by all.
CREATE TABLE chopar.provider_tokens (
  provider   text PRIMARY KEY CHECK (provider ~ '^[a-z][a-z0-9_]*$'),
  token      text NOT NULL CHECK (length(token) BETWEEN 1 AND 8192),
  updated_at timestamptz NOT NULL
);
