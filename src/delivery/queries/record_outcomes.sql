-- Records what the providers answered for one sent batch, in one statement.
-- $1: JSON array of {id, token, status ('sent' | 'queued' | 'failed'),
-- retry_in (seconds until the next attempt, 'queued' only), reason,
-- provider_message_id, provider, telegram_chat_gone, gone_push,
-- gone_devices, user_address_gone};
-- $2: now (NULL: the database's now()). A retry's reason gets "; retry at <time>" appended.
-- Returns each row changed with its seconds from creation to now (the
-- latency of a sent one). A row changes only while this worker still owns its
-- claim (same token, still sending): a late answer after the lease was taken
-- back changes nothing, and neither do the address clean-ups that came with
-- it. A gone Telegram chat deactivates the connection (only if it is still
-- that chat); gone push subscriptions and mobile devices of the user are
-- deleted, and so is a
-- gone address of a registered channel (only if it is still that address).
WITH t AS MATERIALIZED (
  SELECT coalesce($2::timestamptz, now()) AS now
), r AS MATERIALIZED (
  SELECT j.*, t.now + j.retry_in * interval '1 second' AS next_attempt_at
  FROM jsonb_to_recordset($1::jsonb)
    AS j(id bigint, token uuid, status text, retry_in double precision, reason text,
         provider_message_id text, provider text, telegram_chat_gone bigint, gone_push bigint[],
         gone_devices bigint[], user_address_gone text)
  CROSS JOIN t
), updated AS (
  UPDATE chopar.deliveries d
  SET status = r.status,
      next_attempt_at = coalesce(r.next_attempt_at, d.next_attempt_at),
      lease_until = NULL,
      claim_token = NULL,
      sent_at = CASE WHEN r.status = 'sent' THEN t.now END,
      provider_message_id = coalesce(r.provider_message_id, d.provider_message_id),
      provider = coalesce(r.provider, d.provider),
      last_error = coalesce(r.reason || coalesce('; retry at ' || to_char(r.next_attempt_at AT TIME ZONE 'UTC',
                                                                      'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
                            d.last_error),
      updated_at = t.now
  FROM r CROSS JOIN t
  WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'sending'
    -- An index condition on the primary key (see apply_claim.sql).
    AND d.id = ANY (ARRAY(SELECT r.id FROM r))
  RETURNING d.id, d.user_id, d.channel, extract(epoch FROM t.now - d.created_at)::float8 AS seconds
), telegram AS (
  UPDATE chopar.telegram_connections tc
  SET active = false, updated_at = (SELECT now FROM t)
  FROM updated u JOIN r ON r.id = u.id
  WHERE r.telegram_chat_gone IS NOT NULL AND tc.user_id = u.user_id
    AND tc.chat_id = r.telegram_chat_gone AND tc.active
  RETURNING tc.user_id
), push AS (
  DELETE FROM chopar.push_subscriptions p
  USING updated u JOIN r ON r.id = u.id
  WHERE p.user_id = u.user_id AND p.id = ANY (r.gone_push)
  RETURNING p.id
), devices AS (
  DELETE FROM chopar.devices v
  USING updated u JOIN r ON r.id = u.id
  WHERE v.user_id = u.user_id AND v.id = ANY (r.gone_devices)
  RETURNING v.id
), addresses AS (
  DELETE FROM chopar.user_addresses a
  USING updated u JOIN r ON r.id = u.id
  WHERE r.user_address_gone IS NOT NULL AND a.user_id = u.user_id
    AND a.channel = u.channel AND a.address = r.user_address_gone
  RETURNING a.user_id
)
SELECT u.id, u.seconds,
       (SELECT count(*) FROM telegram) AS telegram_deactivated,
       (SELECT count(*) FROM push) AS push_deleted,
       (SELECT count(*) FROM devices) AS devices_deleted,
       (SELECT count(*) FROM addresses) AS addresses_deleted
FROM updated u
