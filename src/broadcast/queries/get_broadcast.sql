-- Broadcast $1 as the API shows it (no row: unknown). `stopped`: what the
-- walk after a cancel has stopped so far; `stopping`: the walk goes on.
SELECT json_build_object('id', b.id, 'topic', b.topic, 'audience', b.audience,
                         'status', b.status, 'recipients', b.recipients, 'created', b.created,
                         'dedup_key', b.dedup_key,
                         'created_at', chopar.api_time(b.created_at),
                         'finished_at', chopar.api_time(b.finished_at),
                         'stopped', json_build_object('deliveries', b.stopped_deliveries,
                                                      'delayed', b.stopped_delayed,
                                                      'digest_items', b.stopped_digest_items),
                         'stopping', b.cancel_cursor IS NOT NULL)::text AS doc
FROM chopar.broadcasts b
WHERE b.id = $1
