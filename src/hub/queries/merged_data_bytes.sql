-- The bytes of user $1's data once the "data" $2 of a PUT is merged into it
-- (chopar.merged_object; a user that does not exist has {}), as the CHECK
-- of chopar.users.data counts them.
SELECT octet_length(chopar.merged_object(
         coalesce((SELECT u.data FROM chopar.users u WHERE u.id = $1), '{}'), $2::jsonb)::text)
       AS bytes
