-- Closes claimed windows and queues their deliveries, in one statement of
-- the closer's transaction. Windows: $1 id, $2 status ('closed', or
-- 'canceled' when no item is left: nothing is sent), $3 content (the
-- rendered texts: {"title", "body", "email": {…}, …}). Deliveries, one per
-- channel of a closed window: $4 digest_id, $5 notification_id (the newest
-- item), $6 user_id, $7 channel, $8 status ('queued', or 'failed' when the
-- channel's text could not be rendered), $9 last_error; $10: now. $11: the
-- closed windows of workflow runs, whose waiting runs are made due now,
-- holding the window (their digest steps decide which run carries it on).
-- Wakes the delivery workers and the workflow advancers.
WITH closed AS (
  UPDATE chopar.digests d
  SET status = c.status, content = c.content, closed_at = $10::timestamptz,
      item_count = CASE WHEN c.status = 'canceled' THEN 0 ELSE d.item_count END
  FROM unnest($1::bigint[], $2::text[], $3::jsonb[]) AS c(id, status, content)
  WHERE d.id = c.id
  RETURNING d.id
), queued AS (
  INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, last_error, next_attempt_at,
                                 created_at, updated_at, digest_id)
  SELECT x.notification_id, x.user_id, x.channel, x.status, x.last_error, $10::timestamptz,
         $10::timestamptz, $10::timestamptz, x.digest_id
  FROM unnest($4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[])
    AS x(digest_id, notification_id, user_id, channel, status, last_error)
  RETURNING 1
), runs AS (
  UPDATE chopar.workflow_runs r
  SET status = 'active', waits_on = NULL, due_at = $10::timestamptz, digest_id = i.digest_id,
      updated_at = $10::timestamptz
  FROM chopar.digest_items i
  WHERE i.digest_id = ANY ($11::bigint[]) AND r.notification_id = i.notification_id
    AND r.status = 'waiting' AND r.waits_on = 'digest'
  RETURNING 1
), woken AS (
  SELECT pg_notify('chopar_deliveries', '') WHERE cardinality($4::bigint[]) > 0
), runs_woken AS (
  SELECT pg_notify('chopar_workflows', '') WHERE EXISTS (SELECT 1 FROM runs)
)
SELECT (SELECT count(*) FROM closed) AS closed, (SELECT count(*) FROM queued) AS queued,
       (SELECT count(*) FROM woken) AS woken, (SELECT count(*) FROM runs) AS runs,
       (SELECT count(*) FROM runs_woken) AS runs_woken
