-- The consumer side: one row per event acted on; a repeat inserts nothing.
INSERT INTO chopar.inbox (event_id) VALUES ($1::uuid) ON CONFLICT DO NOTHING
