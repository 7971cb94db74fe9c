-- Broadcast $1 as the API shows it (no row: unknown).
SELECT json_build_object('id', b.id, 'topic', b.topic, 'audience', b.audience,
                         'status', b.status, 'recipients', b.recipients, 'created', b.created,
                         'dedup_key', b.dedup_key,
                         'created_at', chopar.api_time(b.created_at),
                         'finished_at', chopar.api_time(b.finished_at))::text AS doc
FROM chopar.broadcasts b
WHERE b.id = $1
