-- plan: generic
-- Writes one advance of the claimed runs, in the advancer's transaction:
-- each run's new place ($1 notification_id, $2 status, $3 step, $4 due_at,
-- $5 tried (comma-separated), $6 outcomes, $7 passed a throttle step, $13
-- what a waiting run waits on: 'delivery' or 'digest') and
-- the deliveries its channel step sends ($8 notification_id, $9 channel,
-- $10 step, $11 whether the run waits for it); $12: now. A delivery is
-- `failed` at once when its channel's text could not be rendered (the
-- notification's content says why), and a run that would wait for it is
-- due at once instead. Deliveries are created now (their partition), so
-- the claim finds their notification by id; a run that carries a digest on
-- (digest_id) gives its deliveries the window's content. Wakes the
-- delivery workers.
WITH runs AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::timestamptz[], $5::text[],
                       $6::jsonb[], $7::boolean[], $13::text[])
    AS x(notification_id, status, step, due_at, tried, outcomes, passed_throttle, waits_on)
), sends AS (
  SELECT * FROM unnest($8::bigint[], $9::text[], $10::int[], $11::boolean[])
    AS s(notification_id, channel, step, waited)
), queued AS (
  INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, last_error,
                                 next_attempt_at, created_at, updated_at, workflow_step, digest_id)
  SELECT s.notification_id, w.user_id, s.channel,
         CASE WHEN n.content -> s.channel ? 'error' THEN 'failed' ELSE 'queued' END,
         n.content -> s.channel ->> 'error', $12::timestamptz, $12::timestamptz, $12::timestamptz,
         -- Only a delivery its run waits for wakes it (the trigger of
         -- migration 0049): the others end without a write of the run.
         CASE WHEN s.waited THEN s.step END, w.digest_id
  FROM sends s
  JOIN chopar.workflow_runs w ON w.notification_id = s.notification_id
  JOIN chopar.notifications n ON n.id = w.notification_id AND n.created_at = w.notification_created_at
  RETURNING id, notification_id, channel, status, created_at
), waited AS (
  SELECT q.* FROM queued q
  JOIN sends s ON s.notification_id = q.notification_id AND s.channel = q.channel AND s.waited
), updated AS (
  UPDATE chopar.workflow_runs w
  SET status = CASE WHEN q.status = 'failed' THEN 'active' ELSE x.status END,
      waits_on = CASE WHEN q.status = 'failed' THEN NULL ELSE x.waits_on END,
      step = x.step,
      due_at = CASE WHEN q.status = 'failed' THEN $12::timestamptz ELSE x.due_at END,
      -- The delivery waited for now; a run still at the same step without a
      -- new one (asked again later) keeps the one it waited for.
      delivery_id = coalesce(q.id, CASE WHEN x.step = w.step THEN w.delivery_id END),
      delivery_created_at = coalesce(q.created_at,
                                     CASE WHEN x.step = w.step THEN w.delivery_created_at END),
      tried = coalesce(string_to_array(nullif(x.tried, ''), ','), '{}'),
      outcomes = x.outcomes,
      throttle_passed_at = CASE WHEN x.passed_throttle THEN $12::timestamptz
                                ELSE w.throttle_passed_at END,
      updated_at = $12::timestamptz
  FROM runs x
  LEFT JOIN waited q ON q.notification_id = x.notification_id
  WHERE w.notification_id = x.notification_id
  RETURNING 1
), woken AS (
  SELECT pg_notify('chopar_deliveries', '') WHERE EXISTS (SELECT 1 FROM queued)
)
SELECT (SELECT count(*) FROM updated) AS runs, (SELECT count(*) FROM queued) AS queued,
       (SELECT count(*) FROM woken) AS woken
