-- An erasure's batch: up to $2 audit.recorded events (chopar's own events
-- of the audit log) about user $1, a row of theirs or a suppression of
-- their email address or phone number.
DELETE FROM chopar.outbox
WHERE event_id IN (
  SELECT o.event_id
  FROM chopar.users u, chopar.outbox o
  WHERE u.id = $1 AND o.type = 'audit.recorded'
    AND chopar.audit_subject(o.payload ->> 'resource', o.payload ->> 'resource_id',
                             nullif(o.payload -> 'before', 'null'), nullif(o.payload -> 'after', 'null'))
        = ANY (ARRAY['user:' || u.id, 'address:' || lower(u.email), 'address:' || lower(u.phone)])
  LIMIT $2)
