-- Creates topic $1 named $2, or renames it. Returns the topic.
INSERT INTO chopar.topics AS t (key, name)
VALUES ($1, $2)
ON CONFLICT (key) DO UPDATE SET name = excluded.name, updated_at = now()
RETURNING t.key, t.name, t.created_at::text AS created_at, t.updated_at::text AS updated_at
