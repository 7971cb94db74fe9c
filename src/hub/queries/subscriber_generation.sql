-- The generation a subscriber token of user $1 must carry to be accepted:
-- the user's own; -1, which no token carries, for a user erased or being
-- erased (docs/privacy.md); no row for a user that never existed. Two
-- primary-key lookups at most.
SELECT CASE WHEN u.erasing THEN -1 ELSE u.token_generation END AS generation
FROM chopar.users u WHERE u.id = $1
UNION ALL
SELECT -1 FROM chopar.user_erasures e
WHERE e.user_id = $1 AND NOT EXISTS (SELECT 1 FROM chopar.users u WHERE u.id = $1)
