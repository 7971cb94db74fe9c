-- Replaces a user's preferences (after lock_preferences.sql in the same transaction).
UPDATE chopar.users SET preferences = $2::jsonb, updated_at = now() WHERE id = $1
