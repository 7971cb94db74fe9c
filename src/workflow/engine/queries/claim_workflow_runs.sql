-- plan: generic
-- The workflow runs $2 (ids) that lock_workflow_runs.sql locked in this
-- transaction, read by a statement after the one that locked them (see
-- there why), with $1 as now ($1 NULL: the database's now()). Returns what
-- their next steps decide on: the notification's
-- data and state (NULL columns when retention dropped it), and how the
-- delivery the run waited for ended. Both by their partition keys, one
-- partition each. A run woken by its digest window's close also gets
-- whether it carries the digest on (its notification is the window's
-- newest: the one the closer rendered the digest for) and how many
-- notifications the window held.
SELECT r.notification_id, r.user_id, r.type, r.tenant, array_to_string(r.channels, ',') AS channels,
       r.step, array_to_string(r.tried, ',') AS tried, r.outcomes::text AS outcomes,
       r.delivery_id, d.status AS delivery_status, d.channel AS delivery_channel,
       d.last_error AS delivery_error, r.digest_id,
       CASE WHEN r.digest_id IS NOT NULL THEN
         r.notification_id = (SELECT max(i.notification_id) FROM chopar.digest_items i
                              WHERE i.digest_id = r.digest_id)
       END AS digest_carrier,
       (SELECT g.item_count FROM chopar.digests g WHERE g.id = r.digest_id) AS digest_count,
       n.id IS NOT NULL AS found, n.data::text AS data, n.category, n.critical,
       array_to_string(n.tags, ',') AS tags, n.seen_at IS NOT NULL AS seen,
       n.read_at IS NOT NULL AS read, n.archived_at IS NOT NULL AS archived,
       r.created_at::text AS created_at, coalesce($1::timestamptz, now())::text AS now
FROM unnest($2::bigint[]) AS due(notification_id)
JOIN chopar.workflow_runs r ON r.notification_id = due.notification_id
LEFT JOIN chopar.notifications n
  ON n.id = r.notification_id AND n.created_at = r.notification_created_at
LEFT JOIN chopar.deliveries d ON d.id = r.delivery_id AND d.created_at = r.delivery_created_at
ORDER BY r.notification_id
