-- The audit log's row of an operator's retry, in its transaction
-- (migration 0039; nothing is written without an actor): $1 the delivery,
-- $2 its status before. The deliveries table has no audit trigger: the
-- workers change it all the time, and only this change is a caller's.
SELECT chopar.audit_record('delivery', $1::bigint::text, 'update',
                           jsonb_build_object('status', $2::text),
                           jsonb_build_object('status', 'queued', 'attempts', 0))
