-- Events some target failed, claimed (and marked dispatched) earlier in
-- this transaction: undispatched again, the attempt counted, the reason
-- kept, due again after the backoff ($3, milliseconds), with the targets
-- that have them already ($4, comma-separated names).
UPDATE chopar.outbox AS o
SET dispatched_at = NULL,
    last_error = f.error,
    next_attempt_at = now() + f.delay_ms * interval '1 millisecond',
    delivered_to = string_to_array(f.delivered_to, ',')
FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS f(event_id, error, delay_ms, delivered_to)
WHERE o.event_id = f.event_id
