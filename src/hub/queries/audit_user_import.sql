-- The audit log's record of one batch of an import, written instead of a
-- row per user (the batch ran without an actor, so the row triggers of
-- chopar.users recorded nothing): for the actor $1, a 'create' of the users
-- $2 and an 'update' of the users $3 (ids joined by commas, NULL: none), as
-- resource user_import with the batch's id range.
SELECT chopar.audit_record('user_import', r.range, c.action, NULL,
                           jsonb_build_object('ids', string_to_array(c.ids, ',')::bigint[]))
FROM (SELECT pg_catalog.set_config('chopar.actor', $1, true)) AS actor,
     (SELECT min(i) || '-' || max(i) AS range
      FROM unnest(string_to_array(concat_ws(',', $2::text, $3::text), ',')::bigint[]) AS i) AS r,
     (VALUES ('create', $2::text), ('update', $3::text)) AS c(action, ids)
WHERE c.ids IS NOT NULL
