-- The first process to start stores its value; a later one's is ignored.
INSERT INTO chopar.generated_secrets (name, value)
VALUES ($1, $2)
ON CONFLICT (name) DO NOTHING
