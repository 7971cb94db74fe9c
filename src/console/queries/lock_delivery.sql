-- The delivery an operator retries, locked until the retry commits so a
-- worker's claim cannot change it in between.
SELECT status FROM chopar.deliveries WHERE id = $1 FOR UPDATE
