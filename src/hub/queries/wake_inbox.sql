SELECT pg_notify('chopar_inbox', $1)
