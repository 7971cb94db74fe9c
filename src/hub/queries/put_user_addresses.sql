-- PUT /v1/users/{id} "addresses" of user $1: the channels $3 get the
-- addresses $4 (written or replaced); the channels $5 lose theirs, and
-- with $2 ("addresses": null) every channel does. $3 and $5 never share a
-- channel.
WITH removed AS (
  DELETE FROM chopar.user_addresses
  WHERE user_id = $1
    AND ($2::boolean OR channel = ANY ($5::text[]))
    AND NOT channel = ANY ($3::text[])
), written AS (
  INSERT INTO chopar.user_addresses AS a (user_id, channel, address)
  SELECT $1, x.channel, x.address FROM unnest($3::text[], $4::text[]) AS x(channel, address)
  ON CONFLICT (user_id, channel) DO UPDATE SET address = EXCLUDED.address, updated_at = now()
)
SELECT 1
