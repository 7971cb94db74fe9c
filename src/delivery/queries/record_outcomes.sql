-- Records what the providers answered for one sent batch, in one statement.
-- $1: JSON array of {id, token, status ('sent' | 'queued' | 'failed'),
-- next_attempt_at, reason, provider_message_id, telegram_chat_gone,
-- gone_push}; $2: now. A row changes only while this worker still owns its
-- claim (same token, still sending): a late answer after the lease was taken
-- back changes nothing, and neither do the address clean-ups that came with
-- it. A gone Telegram chat deactivates the connection (only if it is still
-- that chat); gone push subscriptions of the user are deleted.
WITH r AS MATERIALIZED (
  SELECT *
  FROM jsonb_to_recordset($1::jsonb)
    AS r(id bigint, token uuid, status text, next_attempt_at timestamptz, reason text,
         provider_message_id text, telegram_chat_gone bigint, gone_push bigint[])
), updated AS (
  UPDATE chopar.deliveries d
  SET status = r.status,
      next_attempt_at = coalesce(r.next_attempt_at, d.next_attempt_at),
      lease_until = NULL,
      claim_token = NULL,
      sent_at = CASE WHEN r.status = 'sent' THEN $2::timestamptz END,
      provider_message_id = coalesce(r.provider_message_id, d.provider_message_id),
      last_error = coalesce(r.reason, d.last_error),
      updated_at = $2::timestamptz
  FROM r
  WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'sending'
    -- An index condition on the primary key (see apply_claim.sql).
    AND d.id = ANY (ARRAY(SELECT r.id FROM r))
  RETURNING d.id, d.user_id
), telegram AS (
  UPDATE chopar.telegram_connections t
  SET active = false, updated_at = $2::timestamptz
  FROM updated u JOIN r ON r.id = u.id
  WHERE r.telegram_chat_gone IS NOT NULL AND t.user_id = u.user_id
    AND t.chat_id = r.telegram_chat_gone AND t.active
  RETURNING t.user_id
), push AS (
  DELETE FROM chopar.push_subscriptions p
  USING updated u JOIN r ON r.id = u.id
  WHERE p.user_id = u.user_id AND p.id = ANY (r.gone_push)
  RETURNING p.id
)
SELECT u.id,
       (SELECT count(*) FROM telegram) AS telegram_deactivated,
       (SELECT count(*) FROM push) AS push_deleted
FROM updated u
