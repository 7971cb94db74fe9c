-- chopar's own events for what a provider reported after the send
-- (docs/outbox.md "chopar's own events"): delivery.delivered,
-- delivery.bounced and delivery.complained, written when a delivery's
-- provider_status first becomes that (an email's receipt, an SMS
-- gateway's or WhatsApp's "delivered"), in the same transaction; and every
-- delivery event's payload gains the delivery's `provider` (migration
-- 0033), as GET /v1/deliveries shows it. Replaces the function of
-- migration 0010; the triggers that call it stay as they are.
DO $own_events$
BEGIN
  IF pg_catalog.to_regclass('chopar.deliveries') IS NULL THEN
    RETURN;
  END IF;

  CREATE OR REPLACE FUNCTION chopar.delivery_events() RETURNS trigger LANGUAGE plpgsql AS $f$
  DECLARE
    selected text := pg_catalog.current_setting('chopar.events', true);
  BEGIN
    IF pg_catalog.strpos(selected, ',delivery.') > 0 THEN
      INSERT INTO chopar.outbox (type, user_id, payload)
      SELECT e.type, n.user_id,
             jsonb_build_object('id', n.id, 'notification_id', n.notification_id,
                                'user_id', n.user_id, 'channel', n.channel, 'status', n.status,
                                'attempts', n.attempts, 'last_error', n.last_error,
                                'provider', n.provider,
                                'provider_message_id', n.provider_message_id,
                                'provider_status', n.provider_status,
                                'next_attempt_at', chopar.api_time(n.next_attempt_at),
                                'created_at', chopar.api_time(n.created_at),
                                'updated_at', chopar.api_time(n.updated_at),
                                'sent_at', chopar.api_time(n.sent_at))
      FROM new_rows n
      JOIN old_rows o ON o.id = n.id
      CROSS JOIN LATERAL (
        -- A delivery's end (sent, failed, skipped or canceled) …
        SELECT 'delivery.' || n.status AS type
        WHERE n.status IS DISTINCT FROM o.status
          AND n.status IN ('sent', 'failed', 'skipped', 'canceled')
        UNION ALL
        -- … and what its provider reported afterwards.
        SELECT 'delivery.' || n.provider_status
        WHERE n.provider_status IS DISTINCT FROM o.provider_status
          AND n.provider_status IN ('delivered', 'bounced', 'complained')
      ) e
      WHERE pg_catalog.strpos(selected, ',' || e.type || ',') > 0
      ORDER BY n.id;
    END IF;
    RETURN NULL;
  END
  $f$;
END
$own_events$;
