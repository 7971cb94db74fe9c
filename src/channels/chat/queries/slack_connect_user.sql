-- POST /v1/users/{id}/slack/connect: user $1's `slack` address becomes
-- the conversation $2 ("T…/U…"), replacing a webhook URL it had.
INSERT INTO chopar.user_addresses AS a (user_id, channel, address)
VALUES ($1, 'slack', $2)
ON CONFLICT (user_id, channel) DO UPDATE SET address = EXCLUDED.address, updated_at = now()
