-- Wakes delivery workers and the inbox streams of the given users at COMMIT.
SELECT pg_notify('chopar_deliveries', ''), pg_notify('chopar_inbox', $1)
