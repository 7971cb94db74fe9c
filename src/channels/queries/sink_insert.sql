-- Records a batch of messages the sink "sent"; $1 is a JSON array.
INSERT INTO sink_messages (delivery_id, channel, user_id, address, subject, body)
SELECT m.delivery_id, m.channel, m.user_id, m.address, m.subject, m.body
FROM jsonb_to_recordset($1::jsonb)
  AS m(delivery_id bigint, channel text, user_id bigint, address text, subject text, body text)
