-- The recipients of recipients = "admins" (the partial index users_admins).
SELECT id FROM chopar.users WHERE admin ORDER BY id
