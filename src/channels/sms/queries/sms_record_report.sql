-- An SMS gateway's delivery report: the final status $2 of the SMS whose
-- provider id is $1 (Eskiz's DELIVRD…; Twilio's and Playmobile's as
-- delivered / failed). Recorded once; a repeated or later report changes nothing, even when
-- two arrive at the same time (the UPDATE re-checks the row it waited for).
-- Returns how many deliveries have that id and how many changed.
WITH target AS (
  SELECT id FROM chopar.deliveries WHERE channel = 'sms' AND provider_message_id = $1
), changed AS (
  UPDATE chopar.deliveries d
  SET provider_status = $2, updated_at = $3::timestamptz
  FROM target t
  WHERE d.id = t.id AND d.provider_status IS NULL
  RETURNING d.id
)
SELECT (SELECT count(*) FROM target) AS matched, (SELECT count(*) FROM changed) AS changed
