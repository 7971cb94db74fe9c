-- WhatsApp status webhooks: $1 a JSON array of {id (the wamid), status
-- ('sent' | 'delivered' | 'read' | 'failed'), error}, in the order Meta sent
-- them; $2 now. Each WhatsApp delivery takes the furthest status named for
-- it, and only when that is further than the one it has (sent < delivered <
-- read < failed), so a repeated or late webhook changes nothing; a failed
-- one also sets last_error. The UPDATE re-checks the row it waited for: two
-- webhooks at once still only move a status forward. Returns how many
-- statuses named a delivery and how many deliveries changed.
WITH r AS MATERIALIZED (
  SELECT j.id, j.status, j.error,
         array_position(ARRAY['sent', 'delivered', 'read', 'failed'], j.status) AS rank
  FROM jsonb_to_recordset($1::jsonb) AS j(id text, status text, error text)
), target AS MATERIALIZED (
  SELECT d.id AS delivery_id, d.created_at, r.status, r.error, r.rank
  FROM r JOIN chopar.deliveries d
    ON d.channel = 'whatsapp' AND d.provider_message_id = r.id AND d.provider_message_id IS NOT NULL
), furthest AS (
  SELECT DISTINCT ON (delivery_id) delivery_id, created_at, status, error, rank
  FROM target
  ORDER BY delivery_id, rank DESC
), changed AS (
  UPDATE chopar.deliveries d
  SET provider_status = f.status,
      last_error = CASE WHEN f.status = 'failed' THEN 'whatsapp: ' || coalesce(f.error, 'failed')
                        ELSE d.last_error END,
      updated_at = $2::timestamptz
  FROM furthest f
  WHERE d.id = f.delivery_id AND d.created_at = f.created_at
    AND coalesce(array_position(ARRAY['sent', 'delivered', 'read', 'failed'], d.provider_status), 0) < f.rank
  RETURNING d.id
)
SELECT (SELECT count(*) FROM target) AS matched, (SELECT count(*) FROM changed) AS changed
