-- Work chopar 946804a left pending, as it wrote it (schema version 22):
-- two users, two delayed notifications (one with every field, one plain)
-- and two broadcasts to every user not yet fanned out (one with its
-- channels, link and data, one with delay_seconds). Captured by running that
-- release's `chopar serve` with roles = ["api"] (so nothing was released or
-- fanned out) against an empty database and calling:
--   PUT  /v1/users/1 {"email":"aziz@example.com","locale":"uz","timezone":"Asia/Tashkent"}
--   PUT  /v1/users/2 {"email":"gulnora@example.com","locale":"en"}
--   POST /v1/notifications {"user_id":1,"type":"task.due","title":"Vazifa muddati",
--        "body":"Hisobot ertaga","link":"/tasks/7","data":{"task_id":7},"category":"tasks",
--        "channels":["email"],"critical":true,"dedup_key":"task:7",
--        "cancellation_key":"task-7","delay_seconds":3600}
--   POST /v1/notifications {"user_id":2,"type":"pill.reminder","title":"Pill",
--        "send_at":"2030-01-01T08:00:00Z"}
--   POST /v1/broadcasts {"audience":"all","notification":{"type":"news.post","title":"Yangilik",
--        "body":"Yangi versiya","link":"/news/3","data":{"post":3},"channels":["email","push"]}}
--   POST /v1/broadcasts {"audience":"all","notification":{"type":"news.digest",
--        "title":"Haftalik","delay_seconds":60}}
-- then `pg_dump --data-only --column-inserts --schema=chopar
-- --exclude-table=chopar.schema_migrations` (its SET lines left out).
INSERT INTO chopar.broadcasts (id, topic, audience, notification, dedup_key, status, cursor, recipients, created, due_at, lease_until, lease_owner, deliveries_due_at, created_at, finished_at, cancel_cursor) OVERRIDING SYSTEM VALUE VALUES (1, NULL, 'all', '{"body": "Yangi versiya", "data": {"post": 3}, "link": "/news/3", "type": "news.post", "title": "Yangilik", "channels": ["email", "push"]}', NULL, 'running', NULL, 0, 0, '2026-12-05 13:32:21.71435+00', NULL, NULL, '2026-12-05 13:32:21.71435+00', '2026-12-05 13:32:21.71435+00', NULL, NULL);
INSERT INTO chopar.broadcasts (id, topic, audience, notification, dedup_key, status, cursor, recipients, created, due_at, lease_until, lease_owner, deliveries_due_at, created_at, finished_at, cancel_cursor) OVERRIDING SYSTEM VALUE VALUES (2, NULL, 'all', '{"type": "news.digest", "title": "Haftalik", "delay_seconds": 60}', NULL, 'running', NULL, 0, 0, '2026-12-05 13:32:21.744825+00', NULL, NULL, '2026-12-05 13:32:21.744825+00', '2026-12-05 13:32:21.744825+00', NULL, NULL);
INSERT INTO chopar.users (id, email, phone, timezone, locale, preferences, quiet_start, quiet_end, admin, created_at, updated_at) VALUES (1, 'aziz@example.com', NULL, 'Asia/Tashkent', 'uz', '{}', NULL, NULL, false, '2026-12-05 13:32:21.517031+00', '2026-12-05 13:32:21.517031+00');
INSERT INTO chopar.users (id, email, phone, timezone, locale, preferences, quiet_start, quiet_end, admin, created_at, updated_at) VALUES (2, 'gulnora@example.com', NULL, 'UTC', 'en', '{}', NULL, NULL, false, '2026-12-05 13:32:21.552937+00', '2026-12-05 13:32:21.552937+00');
INSERT INTO chopar.delayed_notifications (id, notification_id, user_id, due_at, request, dedup_key, cancellation_key, created_at) OVERRIDING SYSTEM VALUE VALUES (1, 1, 1, '2026-12-05 14:32:21.57952+00', '{"body": "Hisobot ertaga", "data": {"task_id": 7}, "link": "/tasks/7", "type": "task.due", "title": "Vazifa muddati", "user_id": 1, "category": "tasks", "channels": ["email"], "critical": true, "dedup_key": "task:7", "cancellation_key": "task-7"}', 'task:7', 'task-7', '2026-12-05 13:32:21.57952+00');
INSERT INTO chopar.delayed_notifications (id, notification_id, user_id, due_at, request, dedup_key, cancellation_key, created_at) OVERRIDING SYSTEM VALUE VALUES (2, 2, 2, '2030-01-01 08:00:00+00', '{"data": {}, "type": "pill.reminder", "title": "Pill", "user_id": 2, "channels": ["email", "telegram", "push", "sms"], "critical": false}', NULL, NULL, '2026-12-05 13:32:21.615045+00');
INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, created_at) VALUES (1, 'task:7', 1, '2026-12-05 14:32:21.57952+00');
SELECT pg_catalog.setval('chopar.broadcasts_id_seq', 2, true);
SELECT pg_catalog.setval('chopar.delayed_notifications_id_seq', 2, true);
SELECT pg_catalog.setval('chopar.deliveries_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.deliveries_legacy_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.digests_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.notifications_id_seq', 2, true);
SELECT pg_catalog.setval('chopar.notifications_legacy_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.outbox_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.push_subscriptions_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.sink_messages_id_seq', 1, false);
SELECT pg_catalog.setval('chopar.sink_messages_legacy_id_seq', 1, false);
