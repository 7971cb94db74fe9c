-- Creates topic $1 named $2, or renames it. Returns the topic as the API shows it.
INSERT INTO chopar.topics AS t (key, name)
VALUES ($1, $2)
ON CONFLICT (key) DO UPDATE SET name = excluded.name, updated_at = now()
RETURNING json_build_object('key', t.key, 'name', t.name,
                            'created_at', chopar.api_time(t.created_at),
                            'updated_at', chopar.api_time(t.updated_at))::text AS doc
