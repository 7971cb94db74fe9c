SELECT timezone FROM chopar.users WHERE id = $1
