-- migrate: no transaction
-- Which provider answered a delivery's last attempt ("smtp", "ses", or the
-- name of an entry of [[channels.<channel>.providers]]): with several
-- providers per channel (src/channels/failover_channel.hpp) an operator, a
-- receipt webhook and the console must know which one has the message.
-- NULL for the sink (its deliveries complete inside the claim) and before
-- any attempt. A nullable column without a default is only a catalogue
-- change; its CHECK is added NOT VALID (a moment's lock) and validated
-- without holding writes back.
ALTER TABLE chopar.deliveries ADD COLUMN IF NOT EXISTS provider text;
DO $$
BEGIN
  ALTER TABLE chopar.deliveries DROP CONSTRAINT IF EXISTS deliveries_provider_check;
  ALTER TABLE chopar.deliveries ADD CONSTRAINT deliveries_provider_check
    CHECK (length(provider) BETWEEN 1 AND 64) NOT VALID;
END
$$;
ALTER TABLE chopar.deliveries VALIDATE CONSTRAINT deliveries_provider_check;
