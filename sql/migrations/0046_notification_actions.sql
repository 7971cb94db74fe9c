-- Actions and tags (docs/api.md "Actions and tags"):
--
-- - notification_actions: the press of a notification's event action,
--   recorded once (its primary key): a repeated press, from another tab or
--   at the same moment, finds the row and changes nothing. The
--   notification's `actions` carry the same `pressed_at`, set in the
--   transaction that inserts the row.
-- - templates.tags, tenant_templates.tags: tags every notification of the
--   type carries, besides a request's own (the notifications_tags grammar).
--
-- notifications is partitioned, so no foreign key: the row names its
-- notification by id, as deliveries do.
CREATE TABLE chopar.notification_actions (
  notification_id bigint NOT NULL,
  action_index    smallint NOT NULL CHECK (action_index BETWEEN 0 AND 1),
  user_id         bigint NOT NULL,
  event           text NOT NULL CHECK (event ~ '^[a-z]+(\.[a-z_]+)*$' AND length(event) <= 100),
  pressed_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (notification_id, action_index)
);
-- A user's presses, for erasing and exporting a user.
CREATE INDEX notification_actions_user ON chopar.notification_actions (user_id);
-- Retention forgets the presses of dropped notifications, oldest first
-- (src/retention/queries/delete_dropped_action_presses.sql).
CREATE INDEX notification_actions_pressed ON chopar.notification_actions (pressed_at);

-- The notifications_tags rule (migration 0042), for the templates' tags.
CREATE FUNCTION chopar.valid_tags(tags text[]) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT tags IS NULL OR (cardinality(tags) BETWEEN 1 AND 10
                          AND array_to_string(tags, ' ', '') ~
                              '^[a-z0-9][a-z0-9_.:-]{0,49}( [a-z0-9][a-z0-9_.:-]{0,49})*$')
$$;

ALTER TABLE chopar.templates
  ADD COLUMN tags text[] CONSTRAINT templates_tags_check CHECK (chopar.valid_tags(tags));
ALTER TABLE chopar.tenant_templates
  ADD COLUMN tags text[] CONSTRAINT tenant_templates_tags_check CHECK (chopar.valid_tags(tags));
