-- One inbox state change ($2: seen, read, unread, archived, unarchived,
-- snoozed, unsnoozed) of user $1's notifications: the ids $3 (NULL: all of
-- them), narrowed by the categories $4, the tag $5 and the tenant $6 (each
-- NULL: any); $7 a snooze's end. Only the rows the change changes are
-- written, so a repeat writes none. Marking read marks seen too. Returns
-- how many changed, their ids (a JSON array) when at most $8 did (else NULL), and the
-- transaction's time as the API writes it.
WITH changed AS (
  UPDATE chopar.notifications n SET
    seen_at = CASE WHEN $2::text IN ('seen', 'read') THEN coalesce(n.seen_at, now())
                   ELSE n.seen_at END,
    read_at = CASE $2::text WHEN 'read' THEN now() WHEN 'unread' THEN NULL ELSE n.read_at END,
    archived_at = CASE $2::text WHEN 'archived' THEN now() WHEN 'unarchived' THEN NULL
                                ELSE n.archived_at END,
    snoozed_until = CASE $2::text WHEN 'snoozed' THEN $7::timestamptz WHEN 'unsnoozed' THEN NULL
                                  ELSE n.snoozed_until END
  WHERE n.user_id = $1
    AND ($3::bigint[] IS NULL OR n.id = ANY ($3::bigint[]))
    AND ($4::text[] IS NULL OR n.category = ANY ($4::text[]))
    AND ($5::text IS NULL OR n.tags @> ARRAY[$5::text])
    AND ($6::text IS NULL OR n.tenant = $6::text)
    AND CASE $2::text WHEN 'seen' THEN n.seen_at IS NULL
                      WHEN 'read' THEN n.read_at IS NULL
                      WHEN 'unread' THEN n.read_at IS NOT NULL
                      WHEN 'archived' THEN n.archived_at IS NULL
                      WHEN 'unarchived' THEN n.archived_at IS NOT NULL
                      WHEN 'snoozed' THEN n.snoozed_until IS DISTINCT FROM $7::timestamptz
                      WHEN 'unsnoozed' THEN n.snoozed_until IS NOT NULL
                      ELSE false END
  RETURNING n.id)
SELECT count(*) AS updated,
       CASE WHEN count(*) <= $8::int THEN coalesce(json_agg(id ORDER BY id), '[]') END::text
         AS ids,
       chopar.api_time(now()) AS at
FROM changed
