-- Whether any console account exists.
SELECT EXISTS (SELECT FROM chopar.console_accounts) AS any
