-- plan: generic
-- Records a batch of messages the sink "sent". Parallel arrays, one element
-- per message: $1 delivery_id, $2 channel, $3 user_id, $4 address, $5
-- subject, $6 body, $7 html (an email's HTML part, else null).
INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, address, subject, body, html)
SELECT *
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[])
