-- The API's delivery JSON also shows the provider's own final report
-- (Eskiz DELIVRD / UNDELIV / REJECTD / EXPIRED), added by 0004.
CREATE OR REPLACE VIEW chopar.deliveries_api AS
SELECT d.id, d.notification_id, d.user_id, d.channel, d.status,
       json_build_object('id', d.id, 'notification_id', d.notification_id, 'user_id', d.user_id,
                         'channel', d.channel, 'status', d.status, 'attempts', d.attempts,
                         'last_error', d.last_error, 'provider_message_id', d.provider_message_id,
                         'provider_status', d.provider_status,
                         'next_attempt_at', chopar.api_time(d.next_attempt_at),
                         'created_at', chopar.api_time(d.created_at),
                         'updated_at', chopar.api_time(d.updated_at),
                         'sent_at', chopar.api_time(d.sent_at)) AS doc
FROM chopar.deliveries d;
