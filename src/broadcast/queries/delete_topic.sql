-- Deletes topic $1 and its subscriptions (ON DELETE CASCADE). Broadcasts
-- already running to it stop at their next batch: no subscriber is left.
DELETE FROM chopar.topics WHERE key = $1
