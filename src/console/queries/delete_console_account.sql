-- Deletes an account ($1); its sessions go with it (ON DELETE CASCADE).
DELETE FROM chopar.console_accounts WHERE id = $1
