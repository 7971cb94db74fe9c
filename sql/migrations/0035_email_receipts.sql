-- migrate: no transaction
-- Email delivery receipts (docs/api.md "Email receipts"): the providers'
-- signed webhooks say a message was delivered, bounced or marked as spam,
-- and name it by the id their send answered — the delivery's
-- provider_message_id. The receipt is stored in provider_status beside the
-- SMS reports and WhatsApp's statuses (the CHECK only widens: added NOT
-- VALID, then validated without holding writes back), and found by a
-- partial index of email rows with an id (nothing for any other insert).
DO $$
BEGIN
  ALTER TABLE chopar.deliveries DROP CONSTRAINT IF EXISTS deliveries_provider_status_check;
  ALTER TABLE chopar.deliveries ADD CONSTRAINT deliveries_provider_status_check
    CHECK (provider_status IN ('DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED',
                               'sent', 'delivered', 'read', 'failed',
                               'bounced', 'complained')) NOT VALID;
END
$$;
ALTER TABLE chopar.deliveries VALIDATE CONSTRAINT deliveries_provider_status_check;

CALL chopar.create_index_by_partition('chopar.deliveries', 'deliveries_email_message',
                                      'email_message',
                                      '(provider_message_id) WHERE channel = ''email'' AND provider_message_id IS NOT NULL');
