-- GET /v1/inbox/preferences: a user's preferences and locale.
SELECT preferences::text AS preferences, locale FROM chopar.users WHERE id = $1
