SELECT timezone FROM users WHERE id = $1
