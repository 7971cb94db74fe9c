-- A hard bounce: email address $1 (lower-cased here) is suppressed, by
-- provider $2 with the bounce's detail $3; an address already suppressed
-- keeps its first entry. Returns the id of a new entry, else nothing.
INSERT INTO chopar.suppressions (channel, address, reason, provider, detail)
VALUES ('email', lower($1), 'bounce', $2, left($3, 300))
ON CONFLICT (channel, address) DO NOTHING
RETURNING id
