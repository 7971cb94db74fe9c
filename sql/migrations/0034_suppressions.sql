-- Suppressed addresses (docs/api.md "Suppressions"): an email address a
-- provider reported as a hard bounce is not sent to again, whoever's it is,
-- until an operator deletes the entry (DELETE /v1/suppressions/…). The
-- worker checks a batch's addresses here before handing it to a provider:
-- a suppressed one's delivery is skipped with last_error "suppressed: …".
-- Addresses are kept as the worker compares them: an email address in
-- lower case, a phone number in E.164. A global table: an address is
-- nobody's in particular.
CREATE TABLE chopar.suppressions (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel  text NOT NULL CHECK (channel IN ('email', 'sms')),
  address  text NOT NULL CHECK (length(address) BETWEEN 1 AND 320 AND address = lower(address)),
  reason   text NOT NULL CHECK (reason IN ('bounce', 'complaint', 'manual')),
  provider text CHECK (length(provider) BETWEEN 1 AND 64),
  detail   text NOT NULL DEFAULT '' CHECK (length(detail) <= 300),
  since    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (channel, address)
);
