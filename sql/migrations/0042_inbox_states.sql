-- migrate: no transaction
-- The inbox states and what a notification may carry besides its text
-- (docs/api.md "Inbox states", "Actions and tags"):
--
-- - seen_at: the bell was opened with the item on screen (the badge counts
--   unseen ones); marking read marks seen too.
-- - archived_at: hidden from the default list until unarchived.
-- - snoozed_until: hidden until then; the snooze loop
--   (src/workflow/engine/snooze_returner.cpp) then clears it, and the item comes back
--   unseen and unread.
-- - actions: at most two buttons, [{"label", "url"} | {"label", "event"}],
--   their labels rendered for the user like the title; an event action
--   pressed carries its "pressed_at". NULL for none.
-- - tags: at most ten, for the inbox's tabs and filters. NULL for none.
--
-- New nullable columns without defaults: adding them rewrites nothing.
-- Their CHECKs are added with the columns, so the check scans nothing but
-- the NULLs the columns start as.
ALTER TABLE chopar.notifications
  ADD COLUMN IF NOT EXISTS seen_at timestamptz,
  ADD COLUMN IF NOT EXISTS archived_at timestamptz,
  ADD COLUMN IF NOT EXISTS snoozed_until timestamptz,
  ADD COLUMN IF NOT EXISTS actions jsonb
    CONSTRAINT notifications_actions_check
    CHECK (actions IS NULL OR (jsonb_typeof(actions) = 'array'
                               AND jsonb_array_length(actions) BETWEEN 1 AND 2)),
  ADD COLUMN IF NOT EXISTS tags text[]
    CONSTRAINT notifications_tags_check
    -- 1..10 tags of the grammar below; joined by a space, which a tag never holds.
    CHECK (tags IS NULL OR (cardinality(tags) BETWEEN 1 AND 10
                            AND array_to_string(tags, ' ', '') ~
                                '^[a-z0-9][a-z0-9_.:-]{0,49}( [a-z0-9][a-z0-9_.:-]{0,49})*$'));

-- The snooze loop's one indexed lookup per wake-up: the earliest snoozed
-- row. Partial, so the notifications that are never snoozed (nearly all)
-- cost it nothing. Built one partition at a time (0022's procedure).
CALL chopar.create_index_by_partition('chopar.notifications', 'notifications_snoozed', 'snoozed',
                                      '(snoozed_until) WHERE snoozed_until IS NOT NULL');

-- The notification object as the API shows it, for chopar's own events:
-- every field the API has.
CREATE OR REPLACE VIEW chopar.notifications_api AS
SELECT n.id, n.user_id, n.created_at, n.read_at,
       json_build_object('id', n.id, 'user_id', n.user_id, 'type', n.type, 'title', n.title,
                         'body', n.body, 'link', n.link, 'data', n.data,
                         'critical', n.critical, 'dedup_key', n.dedup_key, 'tenant', n.tenant,
                         'category', n.category,
                         'tags', coalesce(to_json(n.tags), '[]'::json),
                         'actions', coalesce(n.actions, '[]'::jsonb),
                         'created_at', chopar.api_time(n.created_at),
                         'seen_at', chopar.api_time(n.seen_at),
                         'read_at', chopar.api_time(n.read_at),
                         'archived_at', chopar.api_time(n.archived_at),
                         'snoozed_until', chopar.api_time(n.snoozed_until)) AS doc
FROM chopar.notifications n;
