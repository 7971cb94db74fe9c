-- NOTIFY chopar_inbox once per payload of the array $1, in order (one round
-- trip however many): wake-ups or state changes (hub::InboxStateWakes).
SELECT pg_notify('chopar_inbox', payload) FROM unnest($1::text[]) WITH ORDINALITY AS p(payload, i)
ORDER BY i
