-- What an inbox stream has not sent yet: the user's notifications after id $2.
SELECT v.doc::text AS doc, v.id
FROM chopar.notifications_api v
WHERE v.user_id = $1 AND v.id > $2
ORDER BY v.id
LIMIT $3
