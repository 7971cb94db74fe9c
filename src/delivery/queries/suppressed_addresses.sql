-- The suppressed addresses of channel $1 among $2 (a batch's, as
-- delivery::SuppressionAddress makes them): found by the unique index.
SELECT s.address, s.reason, coalesce(s.provider, '') AS provider, s.detail
FROM chopar.suppressions s
WHERE s.channel = $1 AND s.address = ANY ($2::text[])
