-- When the earliest open digest window closes (NULL: none): one lookup at
-- the start of digests_due.
SELECT min(closes_at)::text AS closes_at FROM chopar.digests WHERE status = 'open'
