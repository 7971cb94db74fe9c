-- An erasure's batch: up to $2 suppressions of user $1's email address or
-- phone number (stored lowercased), while the users row still has them.
DELETE FROM chopar.suppressions
WHERE id IN (
  SELECT s.id
  FROM chopar.users u
  CROSS JOIN LATERAL (VALUES ('email', lower(u.email)), ('sms', lower(u.phone))) AS a(channel, address)
  JOIN chopar.suppressions s ON s.channel = a.channel AND s.address = a.address
  WHERE u.id = $1
  LIMIT $2)
