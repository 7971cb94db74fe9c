-- What Eskiz answered for a batch, written right after the calls (before the
-- worker records outcomes), so an accepted send is never sent again even if
-- the worker then loses its claim. $1: JSON array of {id, outcome_unknown,
-- provider_message_id, provider_status, forget_provider_id}; a final status
-- already recorded is kept.
UPDATE chopar.deliveries d
SET outcome_unknown = r.outcome_unknown,
    provider_message_id = CASE WHEN r.forget_provider_id THEN NULL
                               ELSE coalesce(r.provider_message_id, d.provider_message_id) END,
    provider_status = coalesce(d.provider_status, r.provider_status)
FROM jsonb_to_recordset($1::jsonb)
  AS r(id bigint, outcome_unknown boolean, provider_message_id text, provider_status text,
       forget_provider_id boolean)
WHERE d.id = r.id AND d.channel = 'sms'
