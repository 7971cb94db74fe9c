-- A user's preferences and locale, the row locked until the transaction ends
-- (a read-modify-write of the preferences).
SELECT preferences::text AS preferences, locale FROM chopar.users WHERE id = $1 FOR UPDATE
