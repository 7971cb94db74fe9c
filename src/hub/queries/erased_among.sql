-- Which of the users $1 (bigint[]) were erased or are being erased: asked
-- only about the ids a notify found no user for, to count the late events
-- for erased users it dropped.
SELECT user_id FROM chopar.user_erasures WHERE user_id = ANY ($1::bigint[])
