-- The admins, locked in id order: a role change or delete that could leave
-- no admin waits for another that could, and then sees what it left.
SELECT id FROM chopar.console_accounts WHERE role = 'admin' ORDER BY id FOR UPDATE
