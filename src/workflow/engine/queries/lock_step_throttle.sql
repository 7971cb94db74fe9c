-- Serialises the throttle steps of one (user $1, type $2) until the
-- advancer's transaction ends, so two advancers never both pass the last
-- place in a window. Counted by count_step_throttle.sql in the next
-- statement, whose snapshot is taken after the lock was granted.
SELECT pg_advisory_xact_lock(hashtext('chopar.workflow_throttle'), hashtext($1::bigint::text || '/' || $2::text))
