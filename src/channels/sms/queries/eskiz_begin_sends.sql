-- Before SMS sends, in one statement: marks outcome_unknown on each SMS
-- delivery of $1 (bigint[]) that may be sent now — no earlier attempt with an
-- unknown outcome, no Eskiz id yet — and returns every delivery of $1 with
-- may_send (this statement set the marker; a concurrent sender that set it
-- first wins) and the state before it: outcome_unknown and the Eskiz id of an
-- earlier accepted attempt (to reconcile instead of sending again).
WITH marked AS (
  UPDATE chopar.deliveries
  SET outcome_unknown = true
  WHERE id = ANY ($1::bigint[]) AND channel = 'sms'
    AND NOT outcome_unknown AND provider_message_id IS NULL
  RETURNING id
)
SELECT d.id, (m.id IS NOT NULL) AS may_send, d.outcome_unknown, d.provider_message_id
FROM chopar.deliveries d
LEFT JOIN marked m ON m.id = d.id
WHERE d.id = ANY ($1::bigint[])
