-- An erasure's batch: up to $2 audit log rows about user $1, a row of
-- theirs or a suppression of their email address or phone number keep who
-- did what and when, with "[erased]" for the values (which drops them from
-- the index that finds them).
UPDATE chopar.audit_log
SET before = CASE WHEN before IS NULL THEN NULL ELSE '"[erased]"'::jsonb END,
    after = CASE WHEN after IS NULL THEN NULL ELSE '"[erased]"'::jsonb END
WHERE id IN (
  SELECT l.id
  FROM chopar.users u, chopar.audit_log l
  WHERE u.id = $1
    AND chopar.audit_subject(l.resource, l.resource_id, l.before, l.after)
        = ANY (ARRAY['user:' || u.id, 'address:' || lower(u.email), 'address:' || lower(u.phone)])
  LIMIT $2)
