-- A sign-in succeeded: its email's failures ($1; NULL: none) start again
-- from nothing and its address's ($2) count one less.
WITH email AS (
  DELETE FROM chopar.console_sign_in_failures WHERE kind = 'email' AND key = $1
)
UPDATE chopar.console_sign_in_failures
SET failures = greatest(failures - 1, 0)
WHERE kind = 'address' AND key = $2
