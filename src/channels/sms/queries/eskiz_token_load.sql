-- The Eskiz API token every worker shares, if one was stored.
SELECT token FROM provider_tokens WHERE provider = 'eskiz'
