-- The Eskiz API token every worker shares, if one was stored.
SELECT token FROM chopar.provider_tokens WHERE provider = 'eskiz'
