-- migrate: no transaction
-- WhatsApp's status webhooks (src/channels/chat/whatsapp_status.cpp) store
-- the last status Meta reported for a message — sent, delivered, read or
-- failed — in deliveries.provider_status next to Eskiz's final reports, and
-- find the delivery by Meta's message id (the wamid the send answered).
--
-- The CHECK only widens: every row satisfies the new one, so it is added
-- NOT VALID (a moment's lock, in one statement with the drop) and then
-- validated without holding writes back.
DO $$
BEGIN
  ALTER TABLE chopar.deliveries DROP CONSTRAINT IF EXISTS deliveries_provider_status_check;
  ALTER TABLE chopar.deliveries ADD CONSTRAINT deliveries_provider_status_check
    CHECK (provider_status IN ('DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED',
                               'sent', 'delivered', 'read', 'failed')) NOT VALID;
END
$$;
ALTER TABLE chopar.deliveries VALIDATE CONSTRAINT deliveries_provider_status_check;

-- Only WhatsApp's rows with a wamid: nothing for any other insert.
CALL chopar.create_index_by_partition('chopar.deliveries', 'deliveries_whatsapp_message',
                                      'whatsapp_message',
                                      '(provider_message_id) WHERE channel = ''whatsapp'' AND provider_message_id IS NOT NULL');
