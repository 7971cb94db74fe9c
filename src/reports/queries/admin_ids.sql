-- The recipients of recipients = "admins" (the partial index users_admins).
SELECT id FROM chopar.users WHERE admin AND NOT erasing ORDER BY id
