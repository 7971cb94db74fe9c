-- Records a fan-out batch of broadcast $1 in its transaction: the cursor
-- moves to $2 (the last recipient done; NULL when the batch was empty), $3
-- recipients walked and $4 notifications created are added; $5 true ends
-- the broadcast (no recipient left). The lease, $6 seconds, is held by
-- process $7 between batches; $8 is when the next batch's deliveries fall due.
UPDATE chopar.broadcasts
SET cursor = coalesce($2::bigint, cursor),
    recipients = recipients + $3::bigint,
    created = created + $4::bigint,
    status = CASE WHEN $5::boolean THEN 'done' ELSE status END,
    finished_at = CASE WHEN $5::boolean THEN now() END,
    lease_until = CASE WHEN $5::boolean THEN NULL ELSE now() + make_interval(secs => $6::float8) END,
    lease_owner = CASE WHEN $5::boolean THEN NULL ELSE $7 END,
    deliveries_due_at = $8::timestamptz
WHERE id = $1
