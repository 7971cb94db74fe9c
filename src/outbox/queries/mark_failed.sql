-- Events some target failed: counted, the reason kept, due again after the
-- backoff ($3, milliseconds), with the targets that have them already
-- ($4, comma-separated names).
UPDATE chopar.outbox AS o
SET attempts = o.attempts + 1,
    last_error = f.error,
    next_attempt_at = now() + f.delay_ms * interval '1 millisecond',
    delivered_to = string_to_array(f.delivered_to, ',')
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[]) AS f(id, error, delay_ms, delivered_to)
WHERE o.id = f.id
