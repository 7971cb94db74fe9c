-- Stores a fresh Eskiz token ($1) at $2 for every worker.
INSERT INTO chopar.provider_tokens (provider, token, updated_at)
VALUES ('eskiz', $1, $2::timestamptz)
ON CONFLICT (provider) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at
