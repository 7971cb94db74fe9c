SELECT value FROM chopar.generated_secrets WHERE name = $1
